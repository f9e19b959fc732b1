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

/**
 * Makes each of `members` that `target` declares as a getter build on its first read and keep what it built:
 * the getter is replaced by its value, so every later read answers the same instance. How a declaration (a
 * route, a workflow action) holds zod schemas that loading its module does not build.
 */
export const keepGetters = <T extends object>(target: T, members: readonly string[]): T => {
  for (const member of members) {
    const read = Object.getOwnPropertyDescriptor(target, member)?.get;
    if (!read) continue;
    Object.defineProperty(target, member, {
      configurable: true,
      enumerable: true,
      get() {
        const value: unknown = read.call(target);
        Object.defineProperty(target, member, { value, enumerable: true });
        return value;
      },
    });
  }
  return target;
};
