/** A segmented control: one of a few options (the runtime of an exec or a terminal). */
export function Segmented<T extends string>({
  options,
  value,
  onChange,
  label,
}: {
  options: readonly T[];
  value: T;
  onChange: (value: T) => void;
  label: string;
}) {
  return (
    <fieldset class="segmented" aria-label={label}>
      {options.map((name) => (
        <button
          type="button"
          aria-pressed={value === name}
          key={name}
          class={value === name ? "on" : ""}
          onClick={() => onChange(name)}
        >
          {name}
        </button>
      ))}
    </fieldset>
  );
}
