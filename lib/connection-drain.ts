import "server-only";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";

type RequestMessage = { request: IncomingMessage; response: ServerResponse; server: Server };

/**
 * Keep-alive connections end with the answer they carry once the app server has stopped listening. On SIGTERM/SIGINT
 * Next.js closes its HTTP server and waits for every connection to end; an idle one is closed at once, but one busy
 * when the stop came stayed open after its answer until the keep-alive timeout (65 s), and a load balancer draining
 * the server waited that long. Now an answer that starts on a closed server says `Connection: close`, and a
 * connection whose answer has been sent is closed as soon as it is idle: the process ends when its last answer does.
 *
 * The server is the one Next.js creates, seen through Node's HTTP diagnostics channels; no signal is listened to, so
 * whatever closes the server (a signal, an error) drains it the same way.
 */
export function closeConnectionsWhenClosed(): void {
  diagnostics.subscribe("http.server.request.start", (message) => {
    const { response, server } = message as RequestMessage;
    if (!server.listening) response.shouldKeepAlive = false;
  });
  diagnostics.subscribe("http.server.response.finish", (message) => {
    const { server } = message as RequestMessage;
    // The answer is written; its connection is idle from the next turn.
    if (!server.listening) setImmediate(() => server.closeIdleConnections());
  });
}
