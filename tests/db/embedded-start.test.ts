import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { startCluster } from "../../db/embedded";

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
