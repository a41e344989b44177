import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** Runs a program that listens with whenStopped, then stops itself with `signal`: what it printed, how it ended. */
async function stopped(signal: "SIGINT" | "SIGTERM" | "SIGHUP", alsoListening: boolean) {
  const program = [
    'import { whenStopped } from "./lib/stop-signal.ts";',
    'whenStopped(() => process.stdout.write("cleaned up\\n"));',
    alsoListening ? `process.on("${signal}", () => { process.stdout.write("other\\n"); process.exit(7); });` : "",
    `process.kill(process.pid, "${signal}");`,
    "setTimeout(() => process.stdout.write('still running\\n'), 2000);",
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", "--input-type=module", "-e", program], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code, ended] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  return { out, code, ended };
}

describe("whenStopped", () => {
  it("does its work, then lets Ctrl-C, SIGTERM or a closed terminal end the process as it would have", async () => {
    expect(await stopped("SIGINT", false)).toEqual({ out: "cleaned up\n", code: null, ended: "SIGINT" });
    expect(await stopped("SIGTERM", false)).toEqual({ out: "cleaned up\n", code: null, ended: "SIGTERM" });
    expect(await stopped("SIGHUP", false)).toEqual({ out: "cleaned up\n", code: null, ended: "SIGHUP" });
  });

  it("leaves ending the process to another listener of the signal", async () => {
    expect(await stopped("SIGINT", true)).toEqual({ out: "cleaned up\nother\n", code: 7, ended: null });
  });
});
