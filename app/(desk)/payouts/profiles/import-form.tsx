"use client";

import { FormMessage } from "@/app/_components/forms/form-message";
import { ImportForm, useImportForm } from "@/app/_components/forms/import-file";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { Badge } from "@/app/_components/ui/badge";
import { type ActionResult, EXPECTED_GAME_FIELD } from "@/lib/action-result";
import type { ImportResult } from "@/lib/profiles/bulk";

type Action = (state: ActionResult<ImportResult> | null, form: FormData) => Promise<ActionResult<ImportResult>>;

const EFFECT_LABELS = {
  applied: { label: "Applies now", tone: "success" },
  pending: { label: "Awaits review", tone: "warning" },
  unchanged: { label: "No change", tone: "neutral" },
} as const;

/**
 * Import form: the file is read in the page and sent as text; the form is submitted by hand so the chosen file and
 * mode stay chosen after any answer, and a dry run can be followed by applying the same file.
 */
export function ImportProfilesForm({ action, gameId }: { action: Action; gameId: string }) {
  const importForm = useImportForm(action, {
    missingFile: "choose a CSV file",
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
      {result && result.refused.length > 0 ? (
        <SimpleTable
          caption="Refused rows"
          dense
          head={
            <>
              <Th>Line</Th>
              <Th>Player</Th>
              <Th>Reason</Th>
            </>
          }
        >
          {result.refused.map((r) => (
            <Tr key={`r${r.line}`}>
              <RowTh>{r.line}</RowTh>
              <Td>{r.playerId ?? ""}</Td>
              <Td>{r.reason}</Td>
            </Tr>
          ))}
        </SimpleTable>
      ) : null}
      {result && result.changes.length > 0 ? (
        <SimpleTable
          caption={result.applied ? "Changes made" : "Changes the import makes"}
          dense
          head={
            <>
              <Th>Line</Th>
              <Th>Player</Th>
              <Th>What</Th>
              <Th>New</Th>
              <Th>Before</Th>
              <Th>Effect</Th>
            </>
          }
        >
          {result.changes.map((c) => {
            const effect = EFFECT_LABELS[c.effect];
            return (
              <Tr key={`${c.line}-${c.kind}`}>
                <RowTh>{c.line}</RowTh>
                <Td>{c.playerId}</Td>
                <Td>{c.kind === "details" ? "Payout details" : "Tax form"}</Td>
                <Td>{c.summary}</Td>
                <Td>{c.previous ?? "None"}</Td>
                <Td>
                  <Badge tone={effect.tone}>{effect.label}</Badge>
                </Td>
              </Tr>
            );
          })}
        </SimpleTable>
      ) : null}
    </div>
  );
}
