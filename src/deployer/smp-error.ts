// A strategic merge patch that cannot be applied, with the field path where it failed.
export class SmpError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = 'SmpError';
  }
}
