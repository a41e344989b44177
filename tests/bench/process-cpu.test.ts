import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { type Accounted, cpuSince, readCpu } from "@/bench/process-cpu";

// A parent that, told "go", starts a child doing a fixed amount of hashing, waits for it to end, says "ended", and
// stays until its input closes: the child's time is then only in the parent's count of its ended children.
const PARENT = `
const { spawn } = require("node:child_process");
const CHILD = 'const c = require("node:crypto"); let h = "x"; ' +
  'for (let i = 0; i < 400000; i++) h = c.createHash("sha256").update(h).digest("hex");';
process.stdin.once("data", () => {
  spawn(process.execPath, ["-e", CHILD], { stdio: "ignore" }).once("exit", () => process.stdout.write("ended\\n"));
});
process.stdin.resume();
`;

describe("the benchmarks' CPU accounting", () => {
  it("counts a process's ended children with it only in its tree, and its main thread apart", async () => {
    const parent = spawn(process.execPath, ["-e", PARENT], { stdio: ["pipe", "pipe", "inherit"] });
    try {
      const accounted: Record<string, Accounted> = {
        tree: { pid: parent.pid, scope: "tree" },
        own: { pid: parent.pid, scope: "process" },
        main: { pid: parent.pid, scope: "main thread" },
      };
      const before = readCpu(accounted);
      expect(before).not.toBeNull();
      parent.stdin.write("go\n");
      const [line] = await once(parent.stdout, "data");
      expect(String(line)).toContain("ended");
      const spent = cpuSince(before, accounted, ["tree", "own"]);
      if (!spent) throw new Error("no reading after the child ended");
      const { tree = 0, own = 0, main = 0 } = spent.byProcessMs;
      // 400,000 hashes take well over a tenth of a second of CPU; the parent itself only waits.
      expect(tree - own).toBeGreaterThanOrEqual(100);
      expect(own).toBeLessThan(tree / 2);
      // Both read at once, but one after the other: a tick apart at most.
      expect(main).toBeLessThanOrEqual(own + 10);
      expect(spent.totalMs).toBe(tree + own);
      expect(spent.boundMs).toBe(Math.round(spent.totalMs / spent.cores));
    } finally {
      parent.stdin.end();
      if (parent.exitCode === null) await once(parent, "exit");
    }
  });
});
