// Checks the generated CRDs with the API server's own code, offline: ValidateCustomResourceDefinition
// (structural schema, CEL compilation, CEL cost budget), then replays the case tables through the same
// admission steps a CR goes through (defaulting, pruning as strict field validation, OpenAPI schema,
// list-map keys, CEL rules) and prints every case whose verdict or field path differs from the table.
//
//	cd test/api/k8s-replay && go run . ../../../crds ../testdata/cases
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	v1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

type tc struct {
	Name     string          `json:"name"`
	Valid    bool            `json:"valid"`
	Path     string          `json:"path"`
	Manifest json.RawMessage `json:"manifest"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	crdDir, casesDir := os.Args[1], os.Args[2]
	failed := false
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	must(err)
	for _, crdFile := range files {
		data, err := os.ReadFile(crdFile)
		must(err)
		var crd v1.CustomResourceDefinition
		must(yaml.UnmarshalStrict(data, &crd))
		v1.SetObjectDefaults_CustomResourceDefinition(&crd)
		internal := &apiextensions.CustomResourceDefinition{}
		must(v1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&crd, internal, nil))
		if errs := crdvalidation.ValidateCustomResourceDefinition(context.TODO(), internal); len(errs) > 0 {
			failed = true
			for _, e := range errs {
				fmt.Println(crdFile, e.Error())
			}
			continue
		}
		cases := filepath.Join(casesDir, strings.ToLower(crd.Spec.Names.Kind)+".yaml")
		if _, err := os.Stat(cases); err != nil {
			fmt.Printf("%s: no case table\n", cases)
			continue
		}
		if replay(internal, cases) > 0 {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func replay(internal *apiextensions.CustomResourceDefinition, casesFile string) int {
	var props *apiextensions.JSONSchemaProps
	if internal.Spec.Validation != nil {
		props = internal.Spec.Validation.OpenAPIV3Schema
	} else {
		props = internal.Spec.Versions[0].Schema.OpenAPIV3Schema
	}
	ss, err := structuralschema.NewStructural(props)
	must(err)
	validator, _, err := apivalidation.NewSchemaValidator(props)
	must(err)
	celValidator := cel.NewValidator(ss, true, celconfig.PerCallLimit)

	raw, err := os.ReadFile(casesFile)
	must(err)
	js, err := yaml.YAMLToJSON(raw)
	must(err)
	var cases []tc
	must(json.Unmarshal(js, &cases))
	mismatches := 0
	for _, c := range cases {
		var obj map[string]interface{}
		must(utiljson.Unmarshal(c.Manifest, &obj))
		var errs []string
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, ss)
		structuraldefaulting.Default(obj, ss)
		unknown := pruning.PruneWithOptions(obj, ss, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		for _, u := range unknown {
			errs = append(errs, "unknown field "+u)
		}
		for _, e := range apivalidation.ValidateCustomResource(nil, obj, validator) {
			errs = append(errs, e.Error())
		}
		for _, e := range listtype.ValidateListSetsAndMaps(nil, ss, obj) {
			errs = append(errs, e.Error())
		}
		celErrs, _ := celValidator.Validate(context.TODO(), field.NewPath(""), ss, obj, nil, celconfig.RuntimeCELCostBudget)
		for _, e := range celErrs {
			errs = append(errs, e.Error())
		}
		got := len(errs) == 0
		if got != c.Valid {
			mismatches++
			fmt.Printf("MISMATCH %s: table valid=%v, server valid=%v\n  %s\n", c.Name, c.Valid, got, strings.Join(errs, "\n  "))
		} else if !got && c.Path != "" && !strings.Contains(strings.Join(errs, "\n"), c.Path) {
			mismatches++
			fmt.Printf("PATH %s: want %s in\n  %s\n", c.Name, c.Path, strings.Join(errs, "\n  "))
		}
	}
	fmt.Printf("%s: %d cases, %d mismatches\n", casesFile, len(cases), mismatches)
	return mismatches
}
