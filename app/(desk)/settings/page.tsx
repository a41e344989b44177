import type { Metadata } from "next";
import Link from "next/link";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { requirePageRole } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requirePageRole("admin");
  return (
    <>
      <PageHeader title="Settings" description="Games, users and how Payout Desk works for this studio." />
      <div className="grid gap-4 sm:grid-cols-2">
        <Card>
          <h2 className="font-medium text-ink">
            <Link className="text-accent underline-offset-2 hover:underline" href="/settings/games">
              Games
            </Link>
          </h2>
          <p className="mt-1 text-sm text-ink-muted">Service credentials and webhook signing secrets, per game.</p>
        </Card>
        <Card>
          <h2 className="font-medium text-ink">
            <Link className="text-accent underline-offset-2 hover:underline" href="/settings/users">
              Users
            </Link>
          </h2>
          <p className="mt-1 text-sm text-ink-muted">Who can sign in, and with which role.</p>
        </Card>
        <Card>
          <h2 className="font-medium text-ink">
            <Link className="text-accent underline-offset-2 hover:underline" href="/settings/refunds">
              Refunds
            </Link>
          </h2>
          <p className="mt-1 text-sm text-ink-muted">The largest refund support may make; above it, finance.</p>
        </Card>
        <Card>
          <h2 className="font-medium text-ink">
            <Link className="text-accent underline-offset-2 hover:underline" href="/settings/payouts">
              Payouts
            </Link>
          </h2>
          <p className="mt-1 text-sm text-ink-muted">The minimum payout, and the two-person rule for approving payout batches.</p>
        </Card>
      </div>
    </>
  );
}
