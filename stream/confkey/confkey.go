package confkey

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ApplyEnv sets every key of the struct cfg points to that has a variable in
// environ ("NAME=value" pairs) named prefix + KEY, where KEY is the YAML path
// upper-cased with dots as underscores (EnvName). Lists are comma-separated.
// A variable with the prefix that names no key is an error, unless it is one
// of except.
func ApplyEnv(cfg any, prefix string, environ []string, except ...string) error {
	env := make(map[string]string)
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, prefix) && !slices.Contains(except, k) {
			env[k] = v
		}
	}
	used := make(map[string]bool)
	err := Walk(cfg, func(path string, f reflect.Value) error {
		name := EnvName(prefix, path)
		v, ok := env[name]
		if !ok {
			return nil
		}
		used[name] = true
		if err := SetText(f, v); err != nil {
			return fmt.Errorf("%s (from %s): %w", path, name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k := range env {
		if !used[k] {
			return fmt.Errorf("environment variable %s names no configuration key", k)
		}
	}
	return nil
}

// EnvName is the environment variable of the key at path: prefix and the
// path upper-cased with dots as underscores (kafka.brokers →
// PREFIX_KAFKA_BROKERS for the prefix "PREFIX_").
func EnvName(prefix, path string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
}

// Set sets one key of the struct cfg points to by its YAML path.
func Set(cfg any, key, value string) error {
	found := false
	err := Walk(cfg, func(path string, f reflect.Value) error {
		if path != key {
			return nil
		}
		found = true
		if err := SetText(f, value); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: no such configuration key", key)
	}
	return err
}

// Walk calls fn for every settable leaf of the struct cfg points to, named by
// its YAML path, in field order, until fn returns an error. Fields tagged
// yaml:"-" and unexported ones are skipped; an inline struct's keys sit at its
// parent's level; a struct that unmarshals itself from text, and a
// time.Time, is a leaf.
func Walk(cfg any, fn func(path string, f reflect.Value) error) error {
	return walk(reflect.ValueOf(cfg).Elem(), "", fn)
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func walk(v reflect.Value, prefix string, fn func(path string, f reflect.Value) error) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		f := v.Field(i)
		path := joinPath(prefix, name)
		if opts == "inline" {
			path = prefix
		}
		isText := reflect.PointerTo(f.Type()).Implements(textUnmarshaler)
		if f.Kind() == reflect.Struct && !isText && f.Type() != reflect.TypeFor[time.Time]() {
			if err := walk(f, path, fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(path, f); err != nil {
			return err
		}
	}
	return nil
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// SetText parses s into f according to f's type; a pointer is set to a new
// value.
func SetText(f reflect.Value, s string) error {
	if f.Kind() == reflect.Pointer {
		v := reflect.New(f.Type().Elem())
		if err := SetText(v.Elem(), s); err != nil {
			return err
		}
		f.Set(v)
		return nil
	}
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	if f.Type() == reflect.TypeFor[time.Duration]() {
		d, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		f.SetInt(int64(d))
		return nil
	}
	return setScalar(f, s)
}

func setScalar(f reflect.Value, s string) error {
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetUint(n)
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(s, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetFloat(x)
	case reflect.Slice:
		return setList(f, s)
	default:
		return fmt.Errorf("cannot set a %s from text", f.Type())
	}
	return nil
}

// setList sets a list from comma-separated items (SplitList). An empty s
// gives an empty, non-nil list: where nil means "the default", an explicitly
// empty value means "none".
func setList(f reflect.Value, s string) error {
	if f.Type().Elem().Kind() != reflect.String {
		return fmt.Errorf("cannot set a %s from text", f.Type())
	}
	f.Set(reflect.ValueOf(SplitList(s)).Convert(f.Type()))
	return nil
}

// SplitList splits s at commas into its items, trimmed of white space; empty
// items are dropped. The list is never nil.
func SplitList(s string) []string {
	items := []string{}
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}
