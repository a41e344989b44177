// Runs the type check (tsc), the unit and integration suite (vitest) and the end-to-end suite (Playwright) side by
// side. The type check (half a minute, mostly one thread) runs beside the build rather than before it, where the
// other core would wait. The end-to-end specs run as two Playwright processes, one per project of
// playwright.config.ts ("checks" and "flows"), each with its own database, emulator and server: the browser suites
// spend most of their time waiting on pages, and vitest on PostgreSQL and child processes, so together they keep the
// cores busy. The production build is made once, before both. End-to-end output streams as it comes, each line marked
// with its project; the type check's and vitest's output is shown whole when each ends. The exit code is non-zero
// when any suite fails.
import { spawn } from "node:child_process";

const children = new Set();
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => {
    for (const child of children) child.kill(signal);
  });

/** Runs `npm run -s <script> [-- args]`; output "buffer" is shown when it ends, "stream" as it comes, marked. */
function run(script, args, { output, label = script }) {
  return new Promise((resolve) => {
    const npmArgs = ["run", "-s", script, ...(args.length > 0 ? ["--", ...args] : [])];
    const child = spawn("npm", npmArgs, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    children.add(child);
    const kept = [];
    const marked = (target) => {
      let partial = "";
      return (chunk) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) target.write(`${label} │ ${line}\n`);
      };
    };
    const take = (target) => (output === "buffer" ? (chunk) => kept.push(chunk) : marked(target));
    child.stdout.on("data", take(process.stdout));
    child.stderr.on("data", take(process.stderr));
    child.on("close", (code) => {
      children.delete(child);
      if (output === "buffer") process.stdout.write(Buffer.concat(kept));
      console.log(`\n${label}: ${code === 0 ? "passed" : `failed (exit ${code})`}\n`);
      resolve(code ?? 1);
    });
  });
}

async function endToEnd() {
  const built = await run("build", [], { output: "stream" });
  if (built !== 0) return built;
  const codes = await Promise.all(
    ["checks", "flows"].map((project) =>
      run("test:e2e", [`--project=${project}`], { output: "stream", label: `e2e ${project}` }),
    ),
  );
  return codes.find((code) => code !== 0) ?? 0;
}

const codes = await Promise.all([
  run("typecheck", [], { output: "buffer" }),
  run("test:unit", [], { output: "buffer" }),
  endToEnd(),
]);
process.exit(codes.find((code) => code !== 0) ?? 0);
