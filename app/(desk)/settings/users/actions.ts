"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { roleSchema } from "@/lib/auth/roles";
import { clearSignInLimit, type SignInLimitTarget } from "@/lib/auth/sign-in";
import {
  createUser,
  emailSchema,
  newUserSchema,
  passwordSchema,
  removeUserAccess,
  setUserPassword,
  setUserRole,
} from "@/lib/auth/users";
import { countOf } from "@/lib/format";

export const createUserAction = defineAction(
  { name: "createUser", role: "admin", input: newUserSchema },
  async (input, { user }) => {
    const db = getDb();
    const created = await createUser(db, input, { actor: user, via: "web" });
    revalidatePath("/settings/users");
    return { ok: true, message: `Created ${created.email} as ${created.role}.` };
  },
);

export const changeRoleAction = defineAction(
  { name: "changeRole", role: "admin", input: z.object({ userId: z.string().min(1).max(64), role: roleSchema }) },
  async ({ userId, role }, { user }) => {
    const db = getDb();
    const changed = await setUserRole(db, userId, role, { actor: user, via: "web" });
    revalidatePath("/settings/users");
    return { ok: true, message: `${changed.email} is now ${role}.` };
  },
);

const userIdSchema = z.string().min(1).max(64);

export const removeAccessAction = defineAction(
  { name: "removeAccess", role: "admin", input: z.object({ userId: userIdSchema }) },
  async ({ userId }, { user }) => {
    const removed = await removeUserAccess(getDb(), userId, { actor: user, via: "web" });
    revalidatePath("/settings/users");
    return {
      ok: true,
      message: `${removed.email} can no longer sign in (${countOf(removed.sessionsEnded, "session")} ended).`,
    };
  },
);

export const setPasswordAction = defineAction(
  { name: "setPassword", role: "admin", input: z.object({ userId: userIdSchema, password: passwordSchema }) },
  async ({ userId, password }, { user }) => {
    const set = await setUserPassword(
      getDb(),
      { userId, password, keepSessionId: user.sessionId },
      { actor: user, via: "web" },
    );
    revalidatePath("/settings/users");
    return {
      ok: true,
      message: set.restored
        ? `${set.email} can sign in again with the new password.`
        : `${set.email} has a new password; ${countOf(set.sessionsEnded, "session")} signed out.`,
    };
  },
);

const clearSignInLimitSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("account"), value: emailSchema }),
  z.object({
    kind: z.literal("address"),
    value: z.string().trim().min(1, { message: "is required" }).max(64, { message: "is not an address" }),
  }),
]);

export const clearSignInLimitAction = defineAction(
  { name: "clearSignInLimit", role: "admin", input: clearSignInLimitSchema },
  async (input, { user }) => {
    const target: SignInLimitTarget =
      input.kind === "account" ? { kind: "account", email: input.value } : { kind: "address", address: input.value };
    const { failures } = await clearSignInLimit(getDb(), target, { actor: user, via: "web" });
    revalidatePath("/settings/users");
    const what = input.kind === "account" ? input.value : `address ${input.value}`;
    return { ok: true, message: `Cleared ${countOf(failures, "failed sign-in")} of ${what}.` };
  },
);
