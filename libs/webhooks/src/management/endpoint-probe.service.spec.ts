import { Attempt } from '../transport/webhook-sender';
import { challengeProblem } from './endpoint-probe.service';

const answer = (response_status: number | null, response_body: string | null, error: string | null = null) =>
  ({ response_status, response_body, error }) as Attempt;

describe('ownership challenge', () => {
  const challenge = 'c2lnbmVkLWNoYWxsZW5nZQ';

  it.each([
    ['the challenge as text', answer(200, challenge)],
    ['with whitespace', answer(204, `  ${challenge}\n`)],
    ['as {"challenge"}', answer(200, JSON.stringify({ challenge }))],
    ['as a JSON string', answer(201, JSON.stringify(challenge))],
  ])('is passed by a 2xx with %s', (_label, attempt) => {
    expect(challengeProblem(attempt, challenge)).toBeUndefined();
  });

  it.each([
    [answer(200, 'ok'), 'answered 200 with the body "ok" instead of the challenge'],
    [answer(200, ''), 'answered 200 with an empty body'],
    [answer(200, JSON.stringify({ challenge: 'other' })), 'instead of the challenge'],
    [answer(500, challenge), 'answered 500, not 2xx'],
    [answer(302, challenge), 'answered 302, not 2xx'],
    [answer(null, null, 'timeout'), 'could not be reached (timeout)'],
    [answer(200, 'x'.repeat(500)), `"${'x'.repeat(200)}…"`],
  ])('fails and says why (%#)', (attempt, reason) => {
    expect(challengeProblem(attempt, challenge)).toContain(reason);
  });
});
