// Original file: proto/gw/ir/v1/llm.proto


export interface CustomFormat {
  /**
   * `Completions`, `Messages`, `Embeddings`, `Responses`, ...
   */
  'format'?: (string);
  /**
   * Path of that API; empty means the usual one.
   */
  'path'?: (string);
}

export interface CustomFormat__Output {
  /**
   * `Completions`, `Messages`, `Embeddings`, `Responses`, ...
   */
  'format': (string);
  /**
   * Path of that API; empty means the usual one.
   */
  'path': (string);
}
