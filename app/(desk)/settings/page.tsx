import type { Metadata } from "next";
import Link from "next/link";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { requirePageRole } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Settings" };

const SECTIONS = [
  { href: "/settings/games", title: "Games", text: "Service credentials and webhook signing secrets, per game." },
  { href: "/settings/users", title: "Users", text: "Who can sign in, and with which role." },
  {
    href: "/settings/refunds",
    title: "Refunds",
    text: "How much support may refund on a period, in total; above it, finance.",
  },
  {
    href: "/settings/payouts",
    title: "Payouts",
    text: "The minimum payout, and the two-person rule for approving payout batches.",
  },
  {
    href: "/settings/statements",
    title: "Statements",
    text: "The studio name and address on recipients' statements, and how long their links work.",
  },
  {
    href: "/settings/accounting",
    title: "Accounting",
    text: "Which ledger account codes and tax rates the journal files post to, per game.",
  },
] as const;

export default async function SettingsPage() {
  await requirePageRole("admin");
  return (
    <>
      <PageHeader title="Settings" description="Games, users and how Payout Desk works for this studio." />
      <div className="grid gap-4 sm:grid-cols-2">
        {SECTIONS.map((section) => (
          <Card key={section.href}>
            <h2 className="font-medium text-ink">
              <Link className="text-accent underline-offset-2 hover:underline" href={section.href}>
                {section.title}
              </Link>
            </h2>
            <p className="mt-1 text-sm text-ink-muted">{section.text}</p>
          </Card>
        ))}
      </div>
    </>
  );
}
