// A stand-in for the app server's process: instrumentation's register() starts the workers and their stop, and a
// SIGTERM listener like Next.js's ends the process with 143 at once (its HTTP server has nothing left to close).
import { register } from "../../instrumentation";

process.on("SIGTERM", () => process.exit(143));
await register();
process.stderr.write("server ready\n");
// Keeps the process alive until a signal ends it, as the HTTP server would.
setInterval(() => undefined, 60_000);
