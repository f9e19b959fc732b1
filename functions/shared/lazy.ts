/**
 * A value built on its first use and kept: how a module declares a zod schema without building it when the
 * module loads. Building zod schemas is most of what a route group's bundle would otherwise do at import, so a
 * group's cold start builds none and the first request of a route builds only the schemas that route reads.
 *
 * Each declaration marks its call with a `@__PURE__` annotation: esbuild then leaves out of a bundle every lazy
 * value the bundle never reads (it honours a function's own `@__NO_SIDE_EFFECTS__` only within that file).
 */
export const lazy = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
