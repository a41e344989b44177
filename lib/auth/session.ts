import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/db";
import { recordAudit } from "@/lib/audit";
import { log } from "@/lib/log";
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
 * (through lib/actions.ts and lib/routes.ts); the proxy only redirects and is never the guard. `what`: the action's
 * name or the route's method and path, for the audit line of a refusal.
 */
export async function requireRole(role: Role, what: string): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in to continue.");
  if (!hasRole(user.role, role)) {
    // The desk offers no one what their role cannot do: a refusal here is a page left open across a change of role,
    // or a request made by hand. Audited (`access.refused`, naming the action or the route), as the other refusals;
    // tried once: the refusal is not held up while the database struggles, and a line not written is logged.
    const entry = {
      actor: { id: user.id, email: user.email },
      via: "web" as const,
      action: "access.refused",
      target: what.slice(0, 300),
      outcome: "refused_role",
      detail: { needs: role, role: user.role },
    };
    await recordAudit(getDb(), entry).catch((error: unknown) =>
      log.error("audit line not recorded", { ...entry, actor: user.email, error }),
    );
    throw new AppError("FORBIDDEN", `This needs the ${role} role; you are ${user.role}.`);
  }
  return user;
}

/** For pages: anonymous visitors go to the sign-in page, a role too low sees a refusal. */
export async function requirePageRole(role: Role): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect(signInPathFor((await headers()).get(ASKED_PATH_HEADER)));
  if (!hasRole(user.role, role)) redirect(`/forbidden?needs=${role}`);
  return user;
}
