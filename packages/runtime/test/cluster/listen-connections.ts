import pg from "pg";

/**
 * A bus's `listen` option for tests: opens a dedicated client to `url` each time it is called and
 * keeps it in `opened` (so the test can end, or break, every connection it made).
 *
 * @example
 * const listeners: pg.Client[] = [];
 * new NodeBus({ …, listen: listenConnections(url, listeners) });
 */
export function listenConnections(url: string, opened: pg.Client[]): () => Promise<pg.Client> {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    opened.push(client);
    return client;
  };
}
