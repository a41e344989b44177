import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { AppError } from "@/lib/errors";
import { getAuth } from "./auth";
import { ASKED_PATH_HEADER, signInPathFor } from "./next-path";
import { hasRole, type Role, roleSchema } from "./roles";

export type CurrentUser = {
  id: string;
  email: string;
  name: string;
  role: Role;
  sessionId: string;
};

/** The signed-in user of this request, read from the session cookie and the database (never from a cache). */
export const getCurrentUser = cache(async (): Promise<CurrentUser | null> => {
  const session = await getAuth().api.getSession({ headers: await headers() });
  if (!session) return null;
  const role = roleSchema.safeParse((session.user as { role?: unknown }).role);
  return {
    id: session.user.id,
    email: session.user.email,
    name: session.user.name,
    role: role.success ? role.data : "viewer",
    sessionId: session.session.id,
  };
});

/**
 * The one authorization check. Every server action and route handler that needs a session calls it first
 * (through lib/actions.ts and lib/routes.ts); the proxy only redirects and is never the guard.
 */
export async function requireRole(role: Role): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in to continue.");
  if (!hasRole(user.role, role)) throw new AppError("FORBIDDEN", `This needs the ${role} role; you are ${user.role}.`);
  return user;
}

/** For pages: anonymous visitors go to the sign-in page, a role too low sees a refusal. */
export async function requirePageRole(role: Role): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect(signInPathFor((await headers()).get(ASKED_PATH_HEADER)));
  if (!hasRole(user.role, role)) redirect(`/forbidden?needs=${role}`);
  return user;
}
