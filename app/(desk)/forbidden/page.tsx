import type { Metadata } from "next";
import { roleSchema } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { DeskNotice } from "../desk-notice";

export const metadata: Metadata = { title: "Not allowed" };

/** Where a page the person's role may not open sends them: inside the app, with the navigation they may use. */
export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const user = await requirePageRole("viewer");
  const needs = roleSchema.safeParse((await searchParams).needs);
  return (
    <DeskNotice title="You do not have access to this page">
      <p>
        {needs.success ? `It needs the ${needs.data} role; you are ${user.role}.` : "Your role does not allow it."} Ask
        an admin if you need it.
      </p>
    </DeskNotice>
  );
}
