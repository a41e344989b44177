import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { readSupportRefundLimit } from "@/lib/refunds/settings";
import { saveSupportRefundLimitAction } from "./actions";
import { SupportLimitForm } from "./limit-form";

export const metadata: Metadata = { title: "Refund settings" };

export default async function RefundSettingsPage() {
  await requirePageRole("admin");
  const limit = await readSupportRefundLimit(getDb());
  return (
    <>
      <PageHeader
        title="Refunds"
        breadcrumbs={[{ label: "Settings", href: "/settings" }]}
        description={
          "Who may refund how much. Support looks up subscriptions and refunds up to the limit, per period " +
          "in total; finance refunds any amount."
        }
      />
      <Card title="Support refund limit">
        <p className="mb-4 text-ink">
          Now: <Money value={limit.amountUsd} currency="USD" className="font-semibold" /> per period, in total
          {limit.isDefault ? (
            " (the default; never changed)"
          ) : (
            <>
              {" "}
              · set by {limit.updatedBy} on{" "}
              {limit.updatedAt ? <DateTime value={limit.updatedAt.toISOString()} /> : null}
            </>
          )}
        </p>
        <SupportLimitForm
          action={saveSupportRefundLimitAction}
          current={limit.amountUsd}
          savedAt={limit.updatedAt?.toISOString() ?? ""}
        />
      </Card>
    </>
  );
}
