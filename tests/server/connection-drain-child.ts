// An HTTP server that stops as Next.js's does (SIGTERM: close the server, wait for its connections, exit 143), with
// a keep-alive timeout far longer than the test's, and the app's connection drain (its limits from SILENT_MS and
// DRAIN_MS when given). GET /slow is answered only once the stop has begun (a moment after SIGTERM), so its answer is
// under way at the stop however busy the machine; GET /later is answered a second and a half after the stop (a
// change still being worked on); GET /stream sends a line every 50 ms and never ends; GET /huge
// writes as fast as its client reads, without end.
import http from "node:http";
import { closeConnectionsWhenClosed, DRAIN_LIMITS } from "@/lib/connection-drain";

if (process.env.DRAIN !== "off")
  closeConnectionsWhenClosed({
    silentMs: Number(process.env.SILENT_MS ?? DRAIN_LIMITS.silentMs),
    drainMs: Number(process.env.DRAIN_MS ?? DRAIN_LIMITS.drainMs),
  });
const slow: (() => void)[] = [];
const later: (() => void)[] = [];
const server = http.createServer((request, response) => {
  if (request.url === "/slow") {
    slow.push(() => response.end("slow answer"));
    process.stderr.write("slow answer begun\n");
  } else if (request.url === "/later") {
    later.push(() => response.end("later answer"));
    process.stderr.write("later answer begun\n");
  } else if (request.url === "/stream") {
    const timer = setInterval(() => response.write("line\n"), 50);
    response.on("close", () => clearInterval(timer));
    process.stderr.write("stream begun\n");
  } else if (request.url === "/huge") {
    const chunk = Buffer.alloc(1 << 20, 120);
    const more = () => {
      while (response.write(chunk));
    };
    response.on("drain", more);
    more();
    process.stderr.write("huge begun\n");
  } else {
    response.end("fast answer");
  }
});
server.keepAliveTimeout = 600_000;
process.on("SIGTERM", () => {
  server.close(() => process.exit(143));
  setTimeout(() => {
    for (const answer of slow.splice(0)) answer();
  }, 100);
  setTimeout(() => {
    for (const answer of later.splice(0)) answer();
  }, 1_500);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") process.stderr.write(`listening on ${address.port}\n`);
});
