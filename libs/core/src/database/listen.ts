import { Client } from 'pg';

export interface ListenHandlers {
  /** Each notification's payload ('' for none). */
  onNotify(payload: string): void;
  /** Once, when the connection fails (with its error) or ends; it is closed by then. */
  onLost(error?: Error): void;
}

/**
 * A connection of its own that LISTENs on `channel` (a pooled one would be handed to other queries). It
 * rejects, closed, when it cannot connect or listen; once listening, a failure or end is reported once
 * through `onLost`, and what to do then (poll, reconnect on demand, distrust a cache) is the caller's.
 */
export async function listenOn(
  databaseUrl: string,
  channel: string,
  handlers: ListenHandlers,
): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl, keepAlive: true });
  let listening = false;
  let lost = false;
  const lose = (error?: Error) => {
    if (!listening || lost) return;
    lost = true;
    handlers.onLost(error);
  };
  client.on('notification', (message) => handlers.onNotify(message.payload ?? ''));
  client.on('error', (error) => {
    void client.end().catch(() => undefined);
    lose(error);
  });
  client.on('end', () => lose());
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  listening = true;
  return client;
}
