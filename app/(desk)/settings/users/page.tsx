import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { listSignInLimits } from "@/lib/auth/sign-in";
import { listUsers } from "@/lib/auth/users";
import {
  changeRoleAction,
  clearSignInLimitAction,
  createUserAction,
  removeAccessAction,
  setPasswordAction,
} from "./actions";
import { SignInLimits } from "./sign-in-limits";
import { AccessForms, ChangeRoleForm, CreateUserForm } from "./user-forms";
import { ROLE_LABELS } from "@/lib/auth/roles";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const me = await requirePageRole("admin");
  const db = getDb();
  const [users, limits] = await Promise.all([listUsers(db), listSignInLimits(db)]);
  const signingAdmins = users.filter((u) => u.role === "admin" && u.hasAccess).length;
  return (
    <>
      <PageHeader
        title="Users"
        description={
          "Roles: viewer reads; support refunds and cancels; finance pays; admin manages. Removing a user's access " +
          "signs them out everywhere and deletes their password."
        }
      />
      <SimpleTable
        caption="Users, their roles and access"
        className="mb-8"
        head={
          <>
            <Th>User</Th>
            <Th>Role</Th>
            <Th>Access</Th>
          </>
        }
      >
        {users.map((u) => (
          <Tr key={u.id}>
            <Td>
              <div className="font-medium text-ink">{u.name}</div>
              <div className="text-xs text-ink-muted">{u.email}</div>
            </Td>
            <Td>
              {u.role === "admin" && u.hasAccess && signingAdmins <= 1 ? (
                // The server refuses it: the desk always keeps one admin who can sign in.
                <span className="text-sm">
                  {ROLE_LABELS.admin}
                  <span className="block text-xs text-ink-muted">
                    The only admin who can sign in: make another user admin to change this role.
                  </span>
                </span>
              ) : (
                <ChangeRoleForm action={changeRoleAction} userId={u.id} email={u.email} role={u.role} />
              )}
            </Td>
            <Td>
              <div className="flex flex-col items-start gap-1">
                {u.hasAccess ? null : <Badge tone="warning">No access: cannot sign in</Badge>}
                <AccessForms
                  removeAction={removeAccessAction}
                  passwordAction={setPasswordAction}
                  userId={u.id}
                  email={u.email}
                  hasAccess={u.hasAccess}
                  isSelf={u.id === me.id}
                />
              </div>
            </Td>
          </Tr>
        ))}
      </SimpleTable>
      <SignInLimits accounts={limits.accounts} addresses={limits.addresses} action={clearSignInLimitAction} />
      <Card>
        <h2 className="mb-4 text-sm font-semibold text-ink">Create a user</h2>
        <CreateUserForm action={createUserAction} />
      </Card>
    </>
  );
}
