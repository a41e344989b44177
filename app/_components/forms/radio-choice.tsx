import { type ReactNode, useId } from "react";

type RadioChoiceProps<V extends string> = {
  legend: string;
  /** The form field the chosen value is sent as. */
  name: string;
  options: readonly { value: V; label: ReactNode }[];
  /**
   * The option chosen, if any. The radios are checked by default only, so a form reset after its action brings it
   * back.
   */
  value?: V;
  onChange?: (value: V) => void;
  required?: boolean;
  /** Why the choice was refused: said under the radios, which are marked invalid and described by it. */
  error?: string | null;
};

/** A choice of one: native radio buttons in a fieldset named by its legend (arrow keys move between them). */
export function RadioChoice<V extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  required,
  error,
}: RadioChoiceProps<V>) {
  const errorId = `${useId()}-error`;
  return (
    <fieldset className="flex flex-col gap-1.5" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-1 text-sm font-medium text-ink">{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className="flex items-center gap-2">
          <input
            type="radio"
            name={name}
            value={option.value}
            required={required}
            defaultChecked={value === option.value}
            aria-invalid={error ? true : undefined}
            // On each radio too: focus lands on one, and a fieldset's description is not read out by every reader.
            aria-describedby={error ? errorId : undefined}
            onChange={onChange ? () => onChange(option.value) : undefined}
          />
          {option.label}
        </label>
      ))}
      {error ? (
        <p id={errorId} className="text-xs font-medium text-danger">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
