import type { ConfirmResult } from "@/app/_components/ui/confirm-dialog";

export type ServerAction = (form: FormData) => Promise<ConfirmResult>;

/** The server action with hidden fields set on its form: ids the dialog does not ask for. */
export function withFields(action: ServerAction, fields: Record<string, string>): ServerAction {
  return (form) => {
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    return action(form);
  };
}
