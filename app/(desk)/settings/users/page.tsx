import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { listSignInLimits } from "@/lib/auth/sign-in";
import { listUsers } from "@/lib/auth/users";
import { changeRoleAction, clearSignInLimitAction, createUserAction } from "./actions";
import { SignInLimits } from "./sign-in-limits";
import { ChangeRoleForm, CreateUserForm } from "./user-forms";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  await requirePageRole("admin");
  const db = getDb();
  const [users, limits] = await Promise.all([listUsers(db), listSignInLimits(db)]);
  return (
    <>
      <PageHeader title="Users" description="Roles: viewer reads; support refunds and cancels; finance pays; admin manages." />
      <div className="mb-8 overflow-x-auto rounded-lg border border-line bg-surface">
        <table className="min-w-full text-sm">
          <caption className="sr-only">Users and their roles</caption>
          <thead className="bg-subtle text-left text-ink-muted">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">User</th>
              <th scope="col" className="px-3 py-2 font-medium">Role</th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} className="border-t border-line">
                <td className="px-3 py-2">
                  <div className="font-medium text-ink">{u.name}</div>
                  <div className="text-xs text-ink-muted">{u.email}</div>
                </td>
                <td className="px-3 py-2">
                  <ChangeRoleForm action={changeRoleAction} userId={u.id} email={u.email} role={u.role} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <SignInLimits accounts={limits.accounts} addresses={limits.addresses} action={clearSignInLimitAction} />
      <Card>
        <h2 className="mb-4 text-sm font-semibold text-ink">Create a user</h2>
        <CreateUserForm action={createUserAction} />
      </Card>
    </>
  );
}
