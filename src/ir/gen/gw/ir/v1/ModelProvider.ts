// Original file: proto/gw/ir/v1/ir_translate.proto


export interface ModelProvider {
  'provider'?: (string);
  'baseUrl'?: (string);
  'settingsJson'?: (string);
  'policiesJson'?: (string);
}

export interface ModelProvider__Output {
  'provider': (string);
  'baseUrl': (string);
  'settingsJson': (string);
  'policiesJson': (string);
}
