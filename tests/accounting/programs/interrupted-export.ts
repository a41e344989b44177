// Writes a batch's Xero journal parts, and is stopped with SIGINT once the first part is written, as Ctrl-C would
// stop `desk export`: DATABASE_URL, then argv: batch id, output file.
import { createDb } from "@/db";
import { writeExportParts } from "@/lib/exports/file";

const [batchId, out] = process.argv.slice(2);
if (!batchId || !out) throw new Error("usage: interrupted-export BATCH OUT");
const db = createDb(process.env.DATABASE_URL as string, { max: 2 });
await writeExportParts(db, { kind: "journal-xero", batchId, bom: false, actor: null, via: "cli" }, out, {
  onPartWritten: async (file) => {
    if (file.part !== 1) return;
    process.stdout.write(`part 1 of ${file.parts} written\n`);
    process.kill(process.pid, "SIGINT");
    // Still writing when the signal is handled.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  },
});
process.stdout.write("completed\n");
await db.destroy();
