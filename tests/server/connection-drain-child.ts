// An HTTP server that stops as Next.js's does (SIGTERM: close the server, wait for its connections, exit 143), with
// a keep-alive timeout far longer than the test's, and the app's connection drain. GET /slow is answered only once
// the stop has begun (a moment after SIGTERM), so its answer is under way at the stop however busy the machine.
import http from "node:http";
import { closeConnectionsWhenClosed } from "@/lib/connection-drain";

if (process.env.DRAIN !== "off") closeConnectionsWhenClosed();
const slow: (() => void)[] = [];
const server = http.createServer((request, response) => {
  if (request.url === "/slow") {
    slow.push(() => response.end("slow answer"));
    process.stderr.write("slow answer begun\n");
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
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") process.stderr.write(`listening on ${address.port}\n`);
});
