import net from "node:net";
import { describe, expect, it } from "vitest";
import { firstEphemeralPort, freePort, freePortBetween } from "@/db/embedded";

/**
 * The port a test's server or the embedded PostgreSQL is started on is chosen below the system's ephemeral range:
 * no outgoing connection can take it between the choice and the server's listen.
 */
describe("freePort", () => {
  it("gives ports below the ephemeral range that a server can then listen on", async () => {
    const first = await firstEphemeralPort();
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(first);
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("passes over a port something listens on", async () => {
    // Two free neighbours below the ephemeral range (no outgoing connection takes those), the first then held.
    let first: number | null = null;
    while (first === null) {
      const candidate = await freePortBetween(10_000, 20_000);
      if (candidate !== null && (await freePortBetween(candidate + 1, candidate + 1)) !== null) first = candidate;
    }
    const held = net.createServer();
    await new Promise<void>((resolve) => held.listen(first, resolve));
    try {
      expect(await freePortBetween(first, first)).toBeNull();
      for (let i = 0; i < 5; i++) expect(await freePortBetween(first, first + 1)).toBe(first + 1);
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });
});
