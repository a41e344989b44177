import { getAuth } from "../../lib/auth/auth";
import type { Role } from "../../lib/auth/roles";
import { createUser } from "../../lib/auth/users";
import type { Db } from "../../db";

export const TEST_PASSWORD = "correct-horse-battery";

/** Creates a user of each role and returns the Set-Cookie lines of a real sign-in for each. */
export async function signInAs(
  db: Db,
  role: Role,
  email = `${role}-${Math.random().toString(36).slice(2, 8)}@payout-desk.test`,
): Promise<string[]> {
  await createUser(db, { email, role, password: TEST_PASSWORD, name: `${role} user` }, { actor: null, via: "cli" });
  const response = await getAuth().api.signInEmail({ body: { email, password: TEST_PASSWORD }, asResponse: true });
  if (!response.ok) throw new Error(`sign-in failed for ${email}: ${response.status}`);
  return response.headers.getSetCookie();
}
