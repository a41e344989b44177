// An HTTP server that stops as Next.js's does (SIGTERM: close the server, wait for its connections, exit 143), with
// a keep-alive timeout far longer than the test's, and the app's connection drain. GET /slow answers after 300 ms.
import http from "node:http";
import { closeConnectionsWhenClosed } from "@/lib/connection-drain";

if (process.env.DRAIN !== "off") closeConnectionsWhenClosed();
const server = http.createServer((request, response) => {
  if (request.url === "/slow") {
    process.stderr.write("slow answer begun\n");
    setTimeout(() => response.end("slow answer"), 300);
  } else {
    response.end("fast answer");
  }
});
server.keepAliveTimeout = 600_000;
process.on("SIGTERM", () => server.close(() => process.exit(143)));
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") process.stderr.write(`listening on ${address.port}\n`);
});
