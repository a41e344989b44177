"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { recordAudit } from "@/lib/audit";
import { roleSchema } from "@/lib/auth/roles";
import { createUser, newUserSchema, setUserRole } from "@/lib/auth/users";

export const createUserAction = defineAction(
  { name: "createUser", role: "admin", input: newUserSchema },
  async (input, { user }) => {
    const db = getDb();
    const created = await createUser(db, input);
    await recordAudit(db, {
      actor: user,
      action: "user.create",
      target: created.email,
      outcome: "succeeded",
      detail: { role: created.role },
    });
    revalidatePath("/settings/users");
    return { ok: true, message: `Created ${created.email} as ${created.role}.` };
  },
);

export const changeRoleAction = defineAction(
  { name: "changeRole", role: "admin", input: z.object({ userId: z.string().min(1).max(64), role: roleSchema }) },
  async ({ userId, role }, { user }) => {
    const db = getDb();
    const changed = await setUserRole(db, userId, role);
    await recordAudit(db, {
      actor: user,
      action: "user.change_role",
      target: changed.email,
      outcome: "succeeded",
      detail: { role },
    });
    revalidatePath("/settings/users");
    return { ok: true, message: `${changed.email} is now ${role}.` };
  },
);
