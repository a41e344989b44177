import "server-only";
import { getDb } from "@/db";
import { KeyMismatchError, verifyKeys } from "./check";

/**
 * The app server's check at start (instrumentation.ts): with another key it writes the one line and exits, rather
 * than serving pages that fail on the first secret they open.
 */
export async function refuseMismatchedKey(): Promise<void> {
  try {
    await verifyKeys(getDb());
  } catch (error) {
    if (!(error instanceof KeyMismatchError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
