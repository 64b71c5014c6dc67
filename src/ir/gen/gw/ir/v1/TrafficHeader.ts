// Original file: proto/gw/ir/v1/traffic.proto


export interface TrafficHeader {
  'name'?: (string);
  'value'?: (string);
}

export interface TrafficHeader__Output {
  'name': (string);
  'value': (string);
}
