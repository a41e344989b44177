import { z } from "zod";
import type { Db } from "@/db";
import { hasRole, type Role } from "@/lib/auth/roles";
import { listUsers } from "@/lib/auth/users";
import { isAppError } from "@/lib/errors";
import { CliError } from "./cli";

/** Where a command finds the password of the person it acts for, when no terminal can ask for it. */
export const ACTOR_PASSWORD_ENV = "PAYOUT_DESK_ACTOR_PASSWORD";

const actorPasswordSchema = z.string().min(1, { message: "is empty" }).max(128, { message: "is too long" });

/**
 * The person a money command acts as (--actor): an existing finance or admin user (the two-person rule needs a name)
 * who can still sign in, and who proves it with their password, as on the sign-in page (its limits count here too):
 * one operator cannot prepare as one person and approve as another knowing one password. (The `users` commands act
 * without a sign-in, as the database's holder does: a password they set is audited, and the person whose password it
 * was can no longer sign in with their own.) A user whose access was removed acts no more.
 * `does` ends the refusal of another role ("changes payouts").
 */
export function financeActor(db: Db, email: string, does = "acts here") {
  return commandActor(db, email, { role: "finance", does });
}

const ROLE_NAMES: Record<Role, string> = {
  viewer: "any user",
  support: "support, finance or admin",
  finance: "finance or admin",
  admin: "an admin",
};

/** The person a command acts as (--actor), with at least `role`, proved by their password (see financeActor). */
export async function commandActor(
  db: Db,
  email: string,
  need: { role: Role; does: string },
): Promise<{ id: string; email: string; role: Role }> {
  const user = (await listUsers(db)).find((u) => u.email.toLowerCase() === email.toLowerCase());
  if (!user) throw new CliError(`--actor: no user ${email}`);
  if (!user.hasAccess) throw new CliError(`--actor: ${email} has no access (removed by an admin)`);
  if (!hasRole(user.role, need.role))
    throw new CliError(`--actor: ${email} is ${user.role}; ${ROLE_NAMES[need.role]} ${need.does}`);
  const password = await actorPassword(user.email);
  // The sign-in library loads only for a command that acts for somebody.
  const { checkActorPassword } = await import("@/lib/auth/sign-in");
  let checked: boolean;
  try {
    checked = await checkActorPassword(db, { user: { id: user.id, email: user.email }, password, via: "cli" });
  } catch (error) {
    if (isAppError(error)) throw new CliError(`--actor: ${error.message}`);
    throw error;
  }
  if (!checked) throw new CliError(`--actor: wrong password for ${user.email}`);
  return { id: user.id, email: user.email, role: user.role };
}

/** The password from the environment, or typed at the terminal (not shown); refused when neither can give it. */
async function actorPassword(email: string): Promise<string> {
  const fromEnv = process.env[ACTOR_PASSWORD_ENV];
  // Set to nothing (`VAR=` in an env file) it counts as not set, as every other variable does.
  if (fromEnv) {
    const parsed = actorPasswordSchema.safeParse(fromEnv);
    if (!parsed.success) throw new CliError(`${ACTOR_PASSWORD_ENV}: ${parsed.error.issues[0]?.message}`, 2);
    return parsed.data;
  }
  if (!process.stdin.isTTY)
    throw new CliError(
      `--actor: ${email}'s password is needed: run in a terminal to type it, or set ${ACTOR_PASSWORD_ENV}`,
      2,
    );
  const typed = actorPasswordSchema.safeParse(await readHidden(`Password for ${email}: `));
  if (!typed.success) throw new CliError(`--actor: the password ${typed.error.issues[0]?.message}`, 2);
  return typed.data;
}

/** One line typed at the terminal without echoing it; Ctrl-C gives up. The prompt goes to stderr. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") {
          finish();
          resolve(typed);
          return;
        }
        if (ch === "\u0003" || ch === "\u0004") {
          finish();
          reject(new CliError("--actor: no password typed", 2));
          return;
        }
        typed = ch === "\u007f" || ch === "\b" ? typed.slice(0, -1) : typed + ch;
      }
    };
    // The terminal closed before Enter: nothing typed, and the terminal put back as it was.
    const onEnd = () => {
      finish();
      reject(new CliError("--actor: no password typed", 2));
    };
    stdin.on("data", onData);
    stdin.on("end", onEnd);
  });
}
