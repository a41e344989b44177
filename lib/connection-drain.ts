import "server-only";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { DEFAULT_DRAIN_SECONDS } from "@/core/env";

type RequestMessage = { request: IncomingMessage; response: ServerResponse; server: Server };

export type DrainLimits = {
  /**
   * A connection on which nothing moves for this long is closed: a client that stopped reading a download (the
   * export cuts its reading at 10 minutes, lib/exports/http.ts; the connection itself stays open, its last write
   * waiting for the client) or sends nothing. Longer than any answer the app computes before its first byte.
   */
  silentMs: number;
  /**
   * Once the server stops, answers already being sent (a long download) have this long to finish before they are cut.
   * A request still being worked on (a payout change waiting for another's lock) is let finish whatever the time.
   */
  drainMs: number;
};

export const DRAIN_LIMITS: DrainLimits = { silentMs: 11 * 60_000, drainMs: DEFAULT_DRAIN_SECONDS * 1000 };

/**
 * Keep-alive connections end with the answer they carry once the app server has stopped listening. On SIGTERM/SIGINT
 * Next.js closes its HTTP server and waits for every connection to end; an idle one is closed at once, but one busy
 * when the stop came stayed open after its answer until the keep-alive timeout (65 s), and a load balancer draining
 * the server waited that long. Now an answer that starts on a closed server says `Connection: close`, and a
 * connection whose answer has been sent is closed as soon as it is idle: the process ends when its last answer does.
 * An answer still being sent `drainMs` after the stop (a download to a slow or stalled client) is cut then: its
 * chunked body never ends, so the client knows the file is incomplete. A request not answered yet is not cut (a change
 * cut while it commits would be refused to its person and made all the same). A connection silent for `silentMs` is
 * closed whether or not the server stops.
 *
 * The server is the one Next.js creates, seen through Node's HTTP diagnostics channels; no signal is listened to, so
 * whatever closes the server (a signal, an error) drains it the same way.
 */
export function closeConnectionsWhenClosed(limits: DrainLimits = DRAIN_LIMITS): void {
  // The answers under way on each server, so that a stop cuts those being sent once its time is up.
  const underWay = new WeakMap<Server, Set<ServerResponse>>();
  diagnostics.subscribe("http.server.request.start", (message) => {
    const { request, response, server } = message as RequestMessage;
    if (!server.listening) response.shouldKeepAlive = false;
    // Every connection of the server, a reused keep-alive one included (Node sets it again from `server.timeout`).
    request.socket.setTimeout(limits.silentMs);
    let answers = underWay.get(server);
    if (!answers) {
      answers = new Set();
      underWay.set(server, answers);
      watch(server, answers, limits);
    }
    answers.add(response);
    response.once("close", () => answers.delete(response));
  });
  diagnostics.subscribe("http.server.response.finish", (message) => {
    const { server } = message as RequestMessage;
    // The answer is written; its connection is idle from the next turn.
    if (!server.listening) setImmediate(() => server.closeIdleConnections());
  });
}

/** The server's silence limit, and its close followed, `drainMs` later, by the cut of the answers still being sent. */
function watch(server: Server, answers: Set<ServerResponse>, limits: DrainLimits): void {
  server.timeout = limits.silentMs;
  const close = server.close;
  server.close = function closeThenCut(this: Server, callback?: (error?: Error) => void) {
    const cut = () => {
      for (const response of answers) if (response.headersSent && !response.writableEnded) response.destroy();
    };
    setTimeout(cut, limits.drainMs).unref();
    return close.call(this, callback);
  } as Server["close"];
}
