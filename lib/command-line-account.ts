import "server-only";
import { hostname, userInfo } from "node:os";

/** Set by a command-line process running a command (not the job workers): its lines name who ran it. */
let account: string | null = null;

/**
 * Called by the command line as it runs a command: every line the command writes (`via: "cli"`) keeps the system
 * account and machine it ran from ("ops@desk-1"), whether or not it acts as a signed-in person, so a line without one
 * still says who ran it. A job finishing a command's work in another process (a pull taken up by the workers) writes
 * none: that process's account did not run the command.
 */
export function noteCommandLineRun(): void {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A container user with no entry in the system's account list.
    user = `uid ${process.getuid?.() ?? "unknown"}`;
  }
  account = `${user}@${hostname()}`;
}

/** The account noted by noteCommandLineRun, null in any other process (the web app, the job workers). */
export function commandLineAccount(): string | null {
  return account;
}
