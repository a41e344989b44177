// Runs the unit and integration suite (vitest) and the end-to-end suite (Playwright) side by side. The browser suite
// spends most of its time waiting on pages and the other on PostgreSQL and child processes, so together they keep the
// cores busy. The end-to-end output streams as it comes; the vitest output is shown whole when that suite ends. The
// exit code is non-zero when either suite fails.
import { spawn } from "node:child_process";

function run(script, { stream }) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    const kept = [];
    const take = (target) => (chunk) => (stream ? target.write(chunk) : kept.push(chunk));
    child.stdout.on("data", take(process.stdout));
    child.stderr.on("data", take(process.stderr));
    child.on("close", (code) => {
      if (!stream) process.stdout.write(Buffer.concat(kept));
      console.log(`\n${script}: ${code === 0 ? "passed" : `failed (exit ${code})`}\n`);
      resolve(code ?? 1);
    });
    for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => child.kill(signal));
  });
}

const codes = await Promise.all([run("test:unit", { stream: false }), run("test:e2e", { stream: true })]);
process.exit(codes.find((code) => code !== 0) ?? 0);
