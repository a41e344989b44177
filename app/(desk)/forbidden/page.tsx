import type { Metadata } from "next";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { roleSchema } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Not allowed" };

/** Where a page the person's role may not open sends them: inside the app, with the navigation they may use. */
export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const user = await requirePageRole("viewer");
  const needs = roleSchema.safeParse((await searchParams).needs);
  return (
    <>
      <PageHeader title="You do not have access to this page" />
      <div className="max-w-prose text-ink-muted">
        <p>
          {needs.success
            ? `It needs the ${needs.data} ` + `role; you are ${user.role}.`
            : "Your role does not allow it."}{" "}
          Ask an admin if you need it.
        </p>
        <p className="mt-4">
          <TextLink href="/payouts">Back to Payouts</TextLink>
        </p>
      </div>
    </>
  );
}
