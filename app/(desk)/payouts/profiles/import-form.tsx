"use client";

import { type FormEvent, startTransition, useActionState, useState } from "react";
import { Field } from "@/app/_components/forms/field";
import { FormMessage } from "@/app/_components/forms/form-message";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
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
  const [state, dispatch, pending] = useActionState(action, null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [mode, setMode] = useState<"dry_run" | "apply">("dry_run");
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const file = (form.elements.namedItem("file") as HTMLInputElement).files?.[0];
    if (!file) {
      setFileError("choose a CSV file");
      return;
    }
    setFileError(null);
    const data = new FormData();
    data.set(EXPECTED_GAME_FIELD, gameId);
    data.set("csv", await file.text());
    data.set("mode", mode);
    startTransition(() => dispatch(data));
  };
  const result = state?.ok ? state.data : undefined;
  const failed = state && (!state.ok || (result && !result.dryRun && !result.applied));
  return (
    <div className="flex flex-col gap-4">
      <form onSubmit={onSubmit} noValidate aria-label="Import payout profiles" className="flex max-w-xl flex-col gap-3">
        <Field
          label="CSV file"
          hint="Columns as documented below; the first line is the header."
          error={fileError ?? (state && !state.ok ? (state.fieldErrors?.csv ?? state.fieldErrors?.file) : null)}
          required
        >
          {(control) => <input {...control} name="file" type="file" accept=".csv,text/csv" className="text-sm" />}
        </Field>
        <fieldset className="flex flex-col gap-1.5">
          <legend className="text-sm font-medium text-ink">What to do</legend>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="mode"
              value="dry_run"
              checked={mode === "dry_run"}
              onChange={() => setMode("dry_run")}
            />
            Dry run: list every change and every refused row, change nothing
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="mode"
              value="apply"
              checked={mode === "apply"}
              onChange={() => setMode("apply")}
            />
            Apply: all rows or none (any refused row stops the whole import)
          </label>
        </fieldset>
        <div>
          <Button type="submit" variant="primary" pending={pending} pendingLabel="Reading…">
            {mode === "dry_run" ? "Check the file" : "Import"}
          </Button>
        </div>
      </form>
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
