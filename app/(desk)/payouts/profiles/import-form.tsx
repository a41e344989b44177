"use client";

import { FormMessage } from "@/app/_components/forms/form-message";
import { ImportForm, useImportForm } from "@/app/_components/forms/import-file";
import { type ImportColumn, ImportLinesTable } from "@/app/_components/forms/import-lines";
import { Badge } from "@/app/_components/ui/badge";
import { TextLink } from "@/app/_components/ui/text-link";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";
import { IMPORT_LIMITS } from "@/lib/import-limits";
import type { ImportResult } from "@/lib/profiles/bulk";

type Action = (state: ActionResult<ImportResult> | null, form: FormData) => Promise<ActionResult<ImportResult>>;
type Refused = ImportResult["refused"][number];
type Change = ImportResult["changes"][number];

const EFFECT_LABELS = {
  applied: { label: "Applies now", tone: "success" },
  pending: { label: "Awaits review", tone: "warning" },
  unchanged: { label: "No change", tone: "neutral" },
} as const;

const REFUSED_COLUMNS: readonly [ImportColumn<Refused>, ...ImportColumn<Refused>[]] = [
  { heading: "Line", cell: (r) => r.line },
  { heading: "Player", cell: (r) => r.playerId ?? "" },
  { heading: "Reason", cell: (r) => r.reason },
];

const CHANGE_COLUMNS: readonly [ImportColumn<Change>, ...ImportColumn<Change>[]] = [
  { heading: "Line", cell: (c) => c.line },
  { heading: "Player", cell: (c) => <TextLink href={`/recipients/${c.playerId}`}>{c.playerId}</TextLink> },
  { heading: "What", cell: (c) => (c.kind === "details" ? "Payout details" : "Tax form") },
  { heading: "New", cell: (c) => c.summary },
  { heading: "Before", cell: (c) => c.previous ?? "None" },
  {
    heading: "Effect",
    cell: (c) => {
      const effect = EFFECT_LABELS[c.effect];
      return (
        <>
          <Badge tone={effect.tone}>{effect.label}</Badge>
          {c.displaced ? (
            <span className="mt-1 block text-xs text-ink-muted">
              {c.effect === "unchanged" ? "Withdraws" : "Replaces"} the change waiting for review: {c.displaced}
            </span>
          ) : null}
        </>
      );
    },
  },
];

/**
 * Import form: the file is read in the page and sent as text; the form is submitted by hand so the chosen file and
 * mode stay chosen after any answer, and a dry run can be followed by applying the same file.
 */
export function ImportProfilesForm({ action, gameId }: { action: Action; gameId: string }) {
  const importForm = useImportForm(action, {
    missingFile: "choose a CSV file",
    limit: IMPORT_LIMITS.profiles,
    fields: (text, mode) => ({ [EXPECTED_GAME_FIELD]: gameId, csv: text, mode }),
  });
  const { state } = importForm;
  const result = state?.ok ? state.data : undefined;
  const failed = state && (!state.ok || (result && !result.dryRun && !result.applied));
  return (
    <div className="flex flex-col gap-4">
      <ImportForm
        label="Import payout profiles"
        form={importForm}
        file={{
          label: "CSV file",
          accept: ".csv,text/csv",
          hint: "Columns as documented below; the first line is the header.",
          error: state && !state.ok ? (state.fieldErrors?.csv ?? state.fieldErrors?.file) : null,
        }}
        modes={{
          dryRun: "Dry run: list every change and every refused row, change nothing",
          apply: "Apply: all rows or none (any refused row stops the whole import)",
          submit: { dry_run: "Check the file", apply: "Import" },
        }}
      />
      {state ? <FormMessage tone={failed ? "error" : "success"}>{state.message}</FormMessage> : null}
      {result ? (
        <>
          <ImportLinesTable
            caption="Refused rows"
            lines={result.refused}
            lineKey={(r) => `r${r.line}`}
            columns={REFUSED_COLUMNS}
          />
          <ImportLinesTable
            caption={result.applied ? "Changes made" : "Changes the import makes"}
            lines={result.changes}
            lineKey={(c) => `${c.line}-${c.kind}`}
            columns={CHANGE_COLUMNS}
          />
        </>
      ) : null}
    </div>
  );
}
