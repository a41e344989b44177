const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Refuses anything but a database on this machine: tests create and drop databases. */
export function assertLocal(url: string): void {
  const host = new URL(url).hostname;
  if (!LOCAL_HOSTS.has(host)) throw new Error(`tests only run against a local PostgreSQL, not ${host}`);
}
