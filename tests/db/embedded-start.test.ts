import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import pg from "pg";
import { findRunningCluster, startCluster } from "../../db/embedded";

/** A cluster that does not start says why, in PostgreSQL's own words, not only that it did not. */
it("says what PostgreSQL said when the embedded cluster does not start", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-unstartable-"));
  try {
    await chmod(dir, 0o755);
    // A data folder of a PostgreSQL major version long gone (kept in .data from an old install, say).
    const clusterDir = path.join(dir, "postgres");
    await mkdir(clusterDir, { mode: 0o700 });
    await writeFile(path.join(clusterDir, "PG_VERSION"), "9.6\n");
    if (os.userInfo().uid === 0) await chmod(clusterDir, 0o777);
    const started = startCluster({ clusterDir, password: "not-used-here", durable: false });
    await expect(started).rejects.toThrow(/did not start in .*It said:\n {2}\S/s);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("starts over a postmaster.pid left by a crash whose process id another program has taken since", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-stale-pid-"));
  try {
    await chmod(dir, 0o755);
    const clusterDir = path.join(dir, "postgres");
    const password = "stale-pid-test";
    const first = await startCluster({ clusterDir, password, durable: false });
    await first.stop();
    // As a crash leaves it, naming a process alive now that is no PostgreSQL (and not its parent, whose id PostgreSQL
    // itself passes over).
    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    await writeFile(path.join(clusterDir, "postmaster.pid"), `${other.pid}\n${clusterDir}\n0\n${first.port}\n`);
    const again = await (async () => {
      try {
        expect(await findRunningCluster(clusterDir)).toBeNull();
        return await startCluster({ clusterDir, password, durable: false });
      } finally {
        other.kill();
      }
    })();
    try {
      const client = new pg.Client({ connectionString: again.url });
      await client.connect();
      try {
        expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
      } finally {
        await client.end();
      }
    } finally {
      await again.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
