import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import type { Millis } from "../time";
import { classesReachableFrom, decodeGraph, encodeGraph, GraphCodecError } from "./graph-codec";
import { Ledger } from "./ledger";

/**
 * The emulator's state file: the whole ledger (every field of it, through the generic graph codec) and the clock
 * anchor, so that a restarted emulator carries on where it stopped. A format change that old files cannot be read
 * with raises STATE_VERSION; a file of another version is refused, never half-read.
 */
export const STATE_FORMAT = "payout-desk-emulator-state";
export const STATE_VERSION = 1;

/**
 * The clock anchor: at wall-clock time `wallAt` the emulator clock read `ledgerAt`. With a real-time clock the
 * emulator clock is `ledgerAt + (now - wallAt)`, so time the emulator was stopped counts too (renewals that fell due
 * meanwhile run on the next start, as they would at the service).
 */
export type ClockAnchor = { wallAt: Millis; ledgerAt: Millis };

export type SavedState = { ledger: Ledger; anchor: ClockAnchor; savedAt: Millis };

export class StateFileError extends Error {}

function classes() {
  return classesReachableFrom(new Ledger(0));
}

export function encodeState(ledger: Ledger, anchor: ClockAnchor, savedAt: Millis = Date.now()): string {
  return JSON.stringify({
    format: STATE_FORMAT,
    version: STATE_VERSION,
    savedAt: new Date(savedAt).toISOString(),
    clock: anchor,
    ledger: encodeGraph(ledger, classes()),
  });
}

export function decodeState(text: string, file = "the state file"): SavedState {
  const refuse = (why: string): never => {
    throw new StateFileError(
      `emulator state ${file} cannot be read (${why}); move it away to start the demo afresh, or restore a good copy`,
    );
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return refuse(`not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null) return refuse("not an object");
  const doc = parsed as {
    format?: unknown;
    version?: unknown;
    savedAt?: unknown;
    clock?: Partial<ClockAnchor>;
    ledger?: unknown;
  };
  if (doc.format !== STATE_FORMAT) return refuse("not an emulator state file");
  if (doc.version !== STATE_VERSION)
    return refuse(`version ${String(doc.version)}, this emulator reads version ${STATE_VERSION}`);
  const anchor = doc.clock;
  if (!anchor || !Number.isSafeInteger(anchor.wallAt) || !Number.isSafeInteger(anchor.ledgerAt))
    return refuse("no clock anchor");
  const savedAt = typeof doc.savedAt === "string" ? Date.parse(doc.savedAt) : Number.NaN;
  let ledger: unknown;
  try {
    ledger = decodeGraph(doc.ledger, classes());
  } catch (error) {
    if (error instanceof GraphCodecError) return refuse(error.message);
    throw error;
  }
  if (!(ledger instanceof Ledger) || !Number.isSafeInteger(ledger.now)) return refuse("the ledger is malformed");
  ledger.resume();
  return {
    ledger,
    anchor: anchor as ClockAnchor,
    savedAt: Number.isNaN(savedAt) ? (anchor.wallAt as Millis) : savedAt,
  };
}

/** Reads a state file; null when there is none. A file that is there but unreadable is refused (StateFileError). */
export function readStateFile(file: string): SavedState | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new StateFileError(`emulator state ${file} cannot be read (${(error as Error).message})`);
  }
  return decodeState(text, file);
}

/**
 * Writes the state so that a crash at any moment leaves either the old file or the new one: a temporary file beside
 * it, flushed to disk, renamed over the old one, and the folder flushed so the rename itself survives.
 */
export function writeStateFile(file: string, ledger: Ledger, anchor: ClockAnchor): void {
  const text = encodeState(ledger, anchor);
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, file);
  try {
    const dir = openSync(path.dirname(file), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some file systems refuse to sync a folder; the rename is still atomic there.
  }
}
