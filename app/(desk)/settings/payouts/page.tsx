import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { savePayoutSettingsAction } from "./actions";
import { PayoutSettingsForm } from "./settings-form";
import { readProfileSettings } from "@/lib/profiles/settings";
import { saveProfileSettingsAction } from "./profile-settings-actions";
import { ProfileSettingsForm } from "./profile-settings-form";

export const metadata: Metadata = { title: "Payout settings" };

export default async function PayoutSettingsPage() {
  await requirePageRole("admin");
  const settings = await readPayoutSettings(getDb());
  const profileSettings = await readProfileSettings(getDb());
  return (
    <>
      <PageHeader
        title="Payouts"
        breadcrumbs={[{ label: "Settings", href: "/settings" }]}
        description="Rules every payout batch follows. Changes are recorded in the audit log."
      />
      <Card title="Payout rules">
        <p className="mb-4 text-ink">
          Now: minimum payout <Money value={settings.minPayoutUsd} currency="USD" className="font-semibold" />,
          two-person rule <strong>{settings.twoPersonRule ? "on" : "off"}</strong>
          {settings.isDefault ? (
            " (the defaults; never changed)."
          ) : (
            <>
              {" "}
              · set by {settings.updatedBy} on{" "}
              {settings.updatedAt ? <DateTime value={settings.updatedAt.toISOString()} /> : null}.
            </>
          )}
        </p>
        <PayoutSettingsForm
          action={savePayoutSettingsAction}
          current={{
            minPayoutUsd: settings.minPayoutUsd,
            twoPersonRule: settings.twoPersonRule,
            savedAt: settings.updatedAt?.toISOString() ?? "",
          }}
        />
      </Card>
      <Card title="Tax forms" className="mt-5">
        <ProfileSettingsForm action={saveProfileSettingsAction} requireTaxForm={profileSettings.requireTaxForm} />
      </Card>
    </>
  );
}
