import { RequestContext } from './request-context';

/** A request as the HTTP layer's hooks see it: opened, authenticated, and answered with `status`. */
function answered(status: number, work: () => void): void {
  const request = {};
  RequestContext.open(() => {
    RequestContext.enter({ companyUuid: '00000000-0000-4000-8000-000000000001' });
    expect(RequestContext.afterResponse(work)).toBe(true);
  }, request);
  RequestContext.responded(request, status);
}

describe('RequestContext.afterResponse', () => {
  it('runs the work once a successful response is sent: its writes committed', () => {
    const work = jest.fn();
    answered(201, work);
    answered(200, work);
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('runs nothing after a failed request: its writes rolled back (e.g. PostgreSQL went away)', () => {
    const work = jest.fn();
    for (const status of [404, 409, 422, 500, 503]) answered(status, work);
    expect(work).not.toHaveBeenCalled();
  });

  it('is refused outside an authenticated request, so the caller does the work itself', () => {
    expect(RequestContext.afterResponse(() => undefined)).toBe(false);
  });
});
