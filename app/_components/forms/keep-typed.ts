import { type ActionResult, isFrameworkNavigation, typedValues, UNANSWERED_ACTION } from "@/lib/action-result";

type FormAction<T> = (previous: ActionResult<T> | null, form: FormData) => Promise<ActionResult<T>>;

/**
 * A form's server action whose answer never came (the connection dropped, a proxy's 502, a release that no longer
 * knows the action) reads as a refusal saying so, with what was typed as its `values` (never a secret or payout
 * details: their forms keep them themselves): the form shows it in place, nothing typed lost, instead of the page
 * giving way to the error page.
 */
export function keepTyped<T>(action: FormAction<T>): FormAction<T> {
  return async (previous, form) => {
    try {
      return await action(previous, form);
    } catch (error) {
      // The framework's own navigation (an action's redirect(), notFound()) goes on as it would without this.
      if (isFrameworkNavigation(error)) throw error;
      return { ok: false, code: "INTERNAL", message: UNANSWERED_ACTION, values: typedValues(form) };
    }
  };
}
