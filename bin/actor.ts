import type { Db } from "@/db";
import { hasRole, type Role } from "@/lib/auth/roles";
import { listUsers } from "@/lib/auth/users";
import { CliError } from "./cli";

/**
 * The person a money command acts as (--actor): an existing finance or admin user (the two-person rule needs a name)
 * who can still sign in; a user whose access was removed acts no more, here as on the pages. `does` ends the refusal
 * of another role ("changes payouts").
 */
export async function financeActor(
  db: Db,
  email: string,
  does = "acts here",
): Promise<{ id: string; email: string; role: Role }> {
  const user = (await listUsers(db)).find((u) => u.email.toLowerCase() === email.toLowerCase());
  if (!user) throw new CliError(`--actor: no user ${email}`);
  if (!user.hasAccess) throw new CliError(`--actor: ${email} has no access (removed by an admin)`);
  if (!hasRole(user.role, "finance")) throw new CliError(`--actor: ${email} is ${user.role}; finance or admin ${does}`);
  return { id: user.id, email: user.email, role: user.role };
}
