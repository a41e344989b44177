import type { Metadata } from "next";
import Link from "next/link";
import { roleSchema } from "@/lib/auth/roles";

export const metadata: Metadata = { title: "Not allowed" };

export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const needs = roleSchema.safeParse((await searchParams).needs);
  return (
    <main id="main" className="mx-auto max-w-lg px-6 py-24 text-center">
      <h1 className="text-xl font-semibold text-ink">You do not have access to this page</h1>
      <p className="mt-2 text-sm text-ink-muted">
        {needs.success ? `It needs the ${needs.data} role.` : "Your role does not allow it."} Ask an admin if you need it.
      </p>
      <p className="mt-6">
        <Link className="text-accent underline" href="/payouts">
          Back to Payouts
        </Link>
      </p>
    </main>
  );
}
