import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import {
  DEFAULT_STATEMENT_SETTINGS,
  readSavedStatementSettings,
  statementSettingsDrawn,
} from "@/lib/statements/settings";
import { saveStatementSettingsAction } from "./actions";
import { StatementSettingsForm } from "./settings-form";

export const metadata: Metadata = { title: "Statement settings" };

export default async function StatementSettingsPage() {
  await requirePageRole("admin");
  const db = getDb();
  const saved = await readSavedStatementSettings(db);
  // Until the studio is named, the form starts empty rather than offering the placeholder to save as its name.
  const current = saved ?? { ...DEFAULT_STATEMENT_SETTINGS, studioName: "" };
  return (
    <>
      <PageHeader
        title="Statements"
        breadcrumbs={[{ label: "Settings", href: "/settings" }]}
        description={
          "Who issues the recipients' statements, and how long their download links work. " +
          "Changes are recorded in the audit log."
        }
      />
      <Card title="Issuer and links">
        <StatementSettingsForm
          action={saveStatementSettingsAction}
          current={current}
          drawn={statementSettingsDrawn(saved)}
        />
      </Card>
    </>
  );
}
