"use client";

import { useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { Input } from "@/app/_components/forms/input";
import { FormMessage } from "@/app/_components/forms/form-message";
import { ResultMessage } from "@/app/_components/forms/result-message";
import { ImportForm, useImportForm } from "@/app/_components/forms/import-file";
import { type ImportColumn, ImportLinesTable } from "@/app/_components/forms/import-lines";
import { Select } from "@/app/_components/forms/select";
import { Badge } from "@/app/_components/ui/badge";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";
import { IMPORT_LIMITS } from "@/lib/import-limits";
import { countOf, formatCount } from "@/lib/format";
import { SHOWN_LINES } from "@/lib/payments/plan-line";
import { RESULT_FORMAT_LABELS, RESULT_FORMATS } from "@/lib/payments/schemas";
import type { ImportPreview } from "./payment-actions";

type Action = (state: ActionResult<ImportPreview> | null, form: FormData) => Promise<ActionResult<ImportPreview>>;
type ResultLine = ImportPreview["lines"][number];

const VERDICT_BADGES: Record<string, { label: string; tone: "neutral" | "info" | "success" | "warning" | "danger" }> = {
  pay: { label: "Matched: paid", tone: "success" },
  reject: { label: "Matched: rejected", tone: "warning" },
  return: { label: "Matched: returned", tone: "warning" },
  pending: { label: "Pending", tone: "neutral" },
  already_applied: { label: "Already imported", tone: "neutral" },
  unknown_reference: { label: "Unknown reference", tone: "danger" },
  amount_mismatch: { label: "Amount mismatch", tone: "danger" },
  not_applicable: { label: "Does not apply", tone: "danger" },
  cancelled_file: { label: "Paid from a cancelled file", tone: "danger" },
};

/** Each line of the file: the payment it names, what the provider says, and what importing it does. */
const RESULT_COLUMNS: readonly [ImportColumn<ResultLine>, ...ImportColumn<ResultLine>[]] = [
  { heading: "Reference", cell: (l) => l.reference, className: "font-mono text-xs" },
  { heading: "Recipient", cell: (l) => l.recipientPlayerId ?? "" },
  { heading: "Provider says", cell: (l) => l.outcome },
  {
    heading: "Amount",
    cell: (l) => (
      <>
        {l.amount ?? ""} {l.currency ?? ""}
      </>
    ),
  },
  { heading: "Sent", cell: (l) => l.expectedAmount ?? "" },
  { heading: "Paid on", cell: (l) => l.paidOn ?? "", className: "whitespace-nowrap tabular-nums" },
  {
    heading: "Outcome",
    cell: (l) => {
      const badge = VERDICT_BADGES[l.verdict] ?? { label: l.verdict, tone: "neutral" as const };
      return <Badge tone={badge.tone}>{badge.label}</Badge>;
    },
  },
  {
    heading: "Note",
    cell: (l) => (
      <>
        {l.note}
        {l.reason ? ` (${l.reason})` : ""}
      </>
    ),
  },
];

/**
 * Importing a provider's results: the file is read in the page and sent as text. A dry run shows every line with
 * what it would do (matched, unknown, mismatched); applying the same file then changes the statements. The chosen
 * file, format and mode stay chosen after any answer.
 */
export function ResultsImportForm({ action, gameId, batchId }: { action: Action; gameId: string; batchId: string }) {
  const [format, setFormat] = useState<string>("paypal");
  const [paidOn, setPaidOn] = useState<string>("");
  const importForm = useImportForm(action, {
    missingFile: "choose the provider's results file",
    limit: IMPORT_LIMITS.results,
    fields: (text, mode) => ({ [EXPECTED_GAME_FIELD]: gameId, batchId, format, mode, text, paidOn }),
  });
  const { state } = importForm;
  const result = state?.ok ? state.data : undefined;
  return (
    <div className="flex flex-col gap-3">
      <ImportForm
        label="Import payment results"
        form={importForm}
        file={{
          label: "Results file",
          accept: ".csv,.xml,text/csv,application/xml",
          error: state && !state.ok ? state.fieldErrors?.text : null,
        }}
        modes={{
          dryRun: "Dry run: show what each line would do, change nothing",
          apply: "Apply: record the matched results (unknown and mismatched lines are never applied)",
          submit: { dry_run: "Preview results", apply: "Apply results" },
        }}
      >
        <Field label="Format" error={state && !state.ok ? state.fieldErrors?.format : null} required>
          {(control) => (
            <Select
              {...control}
              name="format"
              value={format}
              onChange={(e) => setFormat(e.target.value)}
              options={RESULT_FORMATS.map((f) => ({ value: f, label: RESULT_FORMAT_LABELS[f] }))}
            />
          )}
        </Field>
        <Field
          label="Paid on"
          hint={
            "The day the provider sent the money, UTC. Left empty: each file's execution date once it has " +
            "come, else today."
          }
          error={state && !state.ok ? state.fieldErrors?.paidOn : null}
        >
          {(control) => (
            <Input {...control} name="paidOn" type="date" value={paidOn} onChange={(e) => setPaidOn(e.target.value)} />
          )}
        </Field>
      </ImportForm>
      <ResultMessage result={state} />
      {result ? (
        <ImportLinesTable
          caption={result.dryRun ? "Preview: what importing this file does" : "Imported"}
          note={
            result.lines.length < result.totalLines
              ? `${formatCount(result.lines.length)} of the ${formatCount(result.totalLines)} lines shown, in the ` +
                `file's order: the first ${formatCount(SHOWN_LINES)} not applied and the first ` +
                `${formatCount(SHOWN_LINES)} of the others. The counts above cover every line.`
              : undefined
          }
          lines={result.lines}
          lineKey={(l, index) => `${index}|${l.reference}|${l.outcome}|${l.transactionId ?? ""}|${l.amount ?? ""}`}
          columns={RESULT_COLUMNS}
        />
      ) : null}
      {result && result.unreadable.length > 0 ? (
        <FormMessage tone="error">
          {countOf(result.unreadable.length, "line")} could not be read:{" "}
          {result.unreadable
            .slice(0, 3)
            .map((u) => `line ${u.line}: ${u.reason}`)
            .join("; ")}
        </FormMessage>
      ) : null}
    </div>
  );
}
