import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { CliError, FLAG_FILE_MAX_BYTES, failureMessage, firstSentence, parseFlags, readFlagFile } from "./cli";
import { exportFlagsSchema } from "./commands/accounting";

const SPEC = {
  usage: "npm run desk -- export --snapshot ID --kind K [--bom]",
  description: "A command with string and boolean flags.",
  options: {
    snapshot: { type: "string" as const, description: "A snapshot id" },
    kind: { type: "string" as const, description: "A kind" },
    bom: { type: "boolean" as const, description: "A switch" },
  },
  schema: z.object({ snapshot: z.string().optional(), kind: z.string().optional(), bom: z.boolean().default(false) }),
};

function failure(argv: string[]): CliError {
  try {
    parseFlags(SPEC, argv);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error(`parseFlags accepted ${JSON.stringify(argv)}`);
}

describe("command line flags", () => {
  it.each([
    [["--snapshot"]],
    [["--snapshot", "--kind", "lines"]],
    [["--kind", "lines", "--snapshot"]],
    [["--snapshot", "--bom"]],
    [["--snapshot", "-x"]],
  ])("say a value is missing for %j, not that the option is ambiguous", (argv) => {
    const error = failure(argv);
    expect(error.message).toMatch(/^--snapshot needs a value/);
    expect(error.message).not.toMatch(/ambiguous/);
    expect(error.message).not.toContain("\n");
    expect(error.exitCode).toBe(2);
  });

  it("says how to give a value that starts with a dash, and refuses a flag of one value given twice", () => {
    expect(failure(["--snapshot", "-late"]).message).toBe(
      "--snapshot needs a value (one starting with a dash: --snapshot=-value; see --help)",
    );
    for (const argv of [
      ["--snapshot", "A", "--kind", "lines", "--snapshot", "B"],
      ["--snapshot=A", "--snapshot=B"],
      ["--bom", "--bom"],
    ]) {
      const error = failure(argv);
      expect(error.message).toMatch(/^--(snapshot|bom) is given more than once: give it once/);
      expect(error.exitCode).toBe(2);
    }
  });

  it("still takes a value that starts with a dash when written with =, and an empty one the schema judges", () => {
    expect(parseFlags(SPEC, ["--snapshot=-x", "--kind", "lines"])).toEqual({
      snapshot: "-x",
      kind: "lines",
      bom: false,
    });
    expect(parseFlags(SPEC, ["--snapshot="])).toEqual({ snapshot: "", bom: false });
  });

  it("says a flag left out is required, and never echoes a stray word", () => {
    const required = { ...SPEC, schema: z.object({ snapshot: z.string(), kind: z.string().optional() }) };
    expect(() => parseFlags(required, ["--kind", "lines"])).toThrow("--snapshot: is required (see --help)");
    // A rule naming the alternatives keeps its words.
    const either = {
      ...SPEC,
      schema: z
        .object({ snapshot: z.string().optional(), kind: z.string().optional() })
        .refine((f) => Boolean(f.snapshot) !== Boolean(f.kind), {
          message: "give it, or --kind (one of the two)",
          path: ["snapshot"],
        }),
    };
    expect(() => parseFlags(either, [])).toThrow("--snapshot: give it, or --kind (one of the two) (see --help)");
    const stray = failure(["--snapshot", "my", "secret-part2", "--kind", "lines"]).message;
    expect(stray).toMatch(/a value was given without a flag/);
    expect(stray).not.toContain("secret-part2");
  });

  it("names an unknown flag and a value given to a switch", () => {
    expect(failure(["--colour", "red"]).message).toContain("--colour");
    expect(failure(["--bom=yes"]).message).toContain("--bom");
  });
});

describe("failureMessage", () => {
  const options = { ...SPEC.options, "paid-on": { type: "string" as const, description: "A day" } };

  it("names a field as its flag when the command has that flag", () => {
    const error = new AppError("INVALID_INPUT", "cannot be in the future", { field: "paidOn" });
    expect(failureMessage(error, options)).toBe("--paid-on: cannot be in the future");
    const zod = z.object({ snapshot: z.string().min(3, { message: "is too short" }) }).safeParse({ snapshot: "a" });
    expect(failureMessage(zod.error, options)).toBe("--snapshot: is too short");
  });

  it("leaves a product field that is no flag of the command out of the message", () => {
    const error = new AppError("CONFLICT", "Accounts not mapped: expense.", { field: "accounts" });
    expect(failureMessage(error, options)).toBe("Accounts not mapped: expense.");
  });
});

describe("desk export's flags", () => {
  const ID = "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11";
  const issueOf = (flags: Record<string, unknown>) => exportFlagsSchema.safeParse(flags).error?.issues[0];

  it("refuses a flag a window's export would ignore, and names the flag given to payee totals", () => {
    expect(issueOf({ kind: "payouts", snapshot: ID, out: "f.csv", year: "2026" })).toMatchObject({
      path: ["year"],
      message: "is for payee-totals only; payouts ignores it",
    });
    expect(issueOf({ kind: "payee-totals", game: "demo", year: "2026", batch: ID, out: "f.csv" })).toMatchObject({
      path: ["batch"],
    });
    expect(issueOf({ kind: "payouts", snapshot: ID, out: "f.csv" })).toBeUndefined();
  });

  it("refuses --bom for a file made for an import with the flags, before the database is opened", () => {
    for (const kind of ["journal-xero", "journal-quickbooks"])
      expect(issueOf({ kind, batch: ID, out: "f.csv", bom: true })).toMatchObject({
        path: ["bom"],
        message: expect.stringMatching(/^a byte-order mark is for files opened in a spreadsheet; the .* import as/),
      });
    expect(issueOf({ kind: "journal", batch: ID, out: "f.csv", bom: true })).toBeUndefined();
    expect(issueOf({ kind: "payee-totals", game: "demo", year: "2026", out: "f.csv", bom: true })).toBeUndefined();
  });
});

describe("firstSentence", () => {
  it("ends at the first full stop outside brackets", () => {
    expect(firstSentence('Writes a CSV (columns in README.md, "Exports"), audited. More.')).toBe(
      'Writes a CSV (columns in README.md, "Exports"), audited',
    );
    expect(firstSentence("No stop at all")).toBe("No stop at all");
  });
});

describe("readFlagFile", () => {
  it("refuses a file larger than an import takes before reading it, and names an unreadable one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "flag-file-"));
    try {
      const big = path.join(dir, "big.csv");
      await writeFile(big, "");
      await truncate(big, FLAG_FILE_MAX_BYTES + 1);
      await expect(readFlagFile("file", big)).rejects.toThrow(`--file: ${big} is larger than 20 MB`);
      await expect(readFlagFile("file", path.join(dir, "none.csv"))).rejects.toThrow(/cannot read .*\(ENOENT\)/);
      await writeFile(path.join(dir, "small.csv"), "reference,outcome\r\n");
      expect(await readFlagFile("file", path.join(dir, "small.csv"))).toBe("reference,outcome\r\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads a pipe, which has no size to check, no further than the limit", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "flag-file-"));
    const fifo = path.join(dir, "in.csv");
    execFileSync("mkfifo", [fifo]);
    // A writer that would send one byte more than the limit: the reader stops at the limit and the writer is cut off.
    const writer = spawn("sh", ["-c", `head -c ${FLAG_FILE_MAX_BYTES + 1} /dev/zero > "$1"`, "sh", fifo], {
      stdio: "ignore",
    });
    const ended = new Promise((resolve) => writer.once("exit", resolve));
    try {
      await expect(readFlagFile("file", fifo)).rejects.toThrow(`--file: ${fifo} is larger than 20 MB`);
      expect(await ended).not.toBeUndefined();
      const small = spawn("sh", ["-c", `printf 'reference,outcome\\n' > "$1"`, "sh", fifo], { stdio: "ignore" });
      const written = new Promise((resolve) => small.once("exit", resolve));
      expect(await readFlagFile("file", fifo)).toBe("reference,outcome\n");
      expect(await written).toBe(0);
    } finally {
      writer.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
