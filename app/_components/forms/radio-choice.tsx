import type { ReactNode } from "react";

type RadioChoiceProps<V extends string> = {
  legend: string;
  /** The form field the chosen value is sent as. */
  name: string;
  options: readonly { value: V; label: ReactNode }[];
  /** The option chosen. The radios are checked by default only, so a form reset after its action brings it back. */
  value: V;
  onChange: (value: V) => void;
};

/** A choice of one: native radio buttons in a fieldset named by its legend (arrow keys move between them). */
export function RadioChoice<V extends string>({ legend, name, options, value, onChange }: RadioChoiceProps<V>) {
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1 text-sm font-medium text-ink">{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className="flex items-center gap-2">
          <input
            type="radio"
            name={name}
            value={option.value}
            defaultChecked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
