import "server-only";
import { log } from "@/lib/log";

/** System codes of a connection that failed or was cut (the server gone, unreachable or refusing). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE"]);

/** The driver's own words for a connection gone (ended mid-answer, timed out, or a client broken or closed by it). */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed)/;

/**
 * An error of the database connection itself, not of a statement: PostgreSQL's connection exceptions (class 08) and
 * its shutting down or restarting (57P01–57P03), a system code of a connection cut, or the driver's own words for one.
 */
export function isConnectionLoss(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (code.startsWith("08") || /^57P0[123]$/.test(code) || CONNECTION_CODES.has(code)))
    return true;
  return typeof message === "string" && CONNECTION_LOST.test(message);
}

/**
 * What `desk worker` does with a rejection nothing awaited. pg-boss writes a job's outcome (completed, failed) without
 * awaiting it: with the database gone at that moment (a restart, a failover) the write is rejected where nothing hears
 * it, which Node turns into the end of the process, every worker of the fleet at once. The job stays active and is
 * taken again once it expires (handlers are idempotent), so the loss is logged and the worker runs on, as the web
 * server does; any other such rejection still ends the process.
 */
export function onUnheardRejection(reason: unknown): void {
  if (!isConnectionLoss(reason)) throw reason;
  log.warn("a database call nothing awaited failed, the connection lost (a job's outcome not written is retried)", {
    error: reason,
  });
}
