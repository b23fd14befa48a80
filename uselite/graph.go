package uselite

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file reads a TensorFlow.js graph model: model.json's topology (a
// TensorFlow GraphDef in JSON) and its weightsManifest, which says in what
// order, with what dtype and shape, the Const tensors lie in the shard
// files. Nothing about this particular model is hard-coded here.

type modelFile struct {
	ModelTopology struct {
		Node []nodeDef `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []manifestGroup `json:"weightsManifest"`
}

type manifestGroup struct {
	Paths   []string     `json:"paths"`
	Weights []weightSpec `json:"weights"`
}

type weightSpec struct {
	Name         string          `json:"name"`
	Shape        []int           `json:"shape"`
	Dtype        string          `json:"dtype"`
	Quantization json.RawMessage `json:"quantization"`
}

type nodeDef struct {
	Name  string                     `json:"name"`
	Op    string                     `json:"op"`
	Input []string                   `json:"input"`
	Attr  map[string]json.RawMessage `json:"attr"`
}

// attrValue is one entry of a node's attr map. The converter writes
// TensorFlow's AttrValue proto as JSON; int64s arrive as strings.
type attrValue struct {
	I    json.RawMessage `json:"i"`
	B    *bool           `json:"b"`
	S    json.RawMessage `json:"s"`
	List *struct {
		I []json.RawMessage `json:"i"`
	} `json:"list"`
}

// gnode is a node of the in-memory graph.
type gnode struct {
	name   string
	op     string
	inputs []vref
	attr   map[string]json.RawMessage
	value  *tensor // the constant, for Const nodes
	// fused holds what the compile pass folded into this node.
	fused *fusion
}

// vref names one output of a node.
type vref struct {
	n   *gnode
	out int
}

type graph struct {
	nodes  []*gnode
	byName map[string]*gnode
}

// parseModelJSON parses model.json.
func parseModelJSON(data []byte) (*modelFile, error) {
	var mf modelFile
	if err := json.Unmarshal(data, &mf); err != nil {
		return nil, fmt.Errorf("parse model.json: %w", err)
	}
	if len(mf.ModelTopology.Node) == 0 {
		return nil, fmt.Errorf("parse model.json: no nodes in modelTopology")
	}
	return &mf, nil
}

// buildGraph links the nodes of mf and attaches the weights. readShard
// returns the bytes of one shard file named in the manifest.
func buildGraph(mf *modelFile, readShard func(path string) ([]byte, error)) (*graph, error) {
	consts, err := loadWeights(mf.WeightsManifest, readShard)
	if err != nil {
		return nil, err
	}
	g := &graph{byName: make(map[string]*gnode, len(mf.ModelTopology.Node))}
	for _, nd := range mf.ModelTopology.Node {
		if _, dup := g.byName[nd.Name]; dup {
			return nil, fmt.Errorf("model.json: duplicate node %q", nd.Name)
		}
		n := &gnode{name: nd.Name, op: nd.Op, attr: nd.Attr}
		if nd.Op == "Const" {
			v, ok := consts[nd.Name]
			if !ok {
				return nil, fmt.Errorf("model.json: constant %q is not in the weights manifest", nd.Name)
			}
			n.value = v
		}
		g.nodes = append(g.nodes, n)
		g.byName[nd.Name] = n
	}
	for i, nd := range mf.ModelTopology.Node {
		n := g.nodes[i]
		for _, in := range nd.Input {
			if strings.HasPrefix(in, "^") {
				continue // control dependency: ordering only, no data
			}
			name, idx := in, 0
			if k := strings.LastIndexByte(in, ':'); k >= 0 {
				if v, err := strconv.Atoi(in[k+1:]); err == nil {
					name, idx = in[:k], v
				}
			}
			src, ok := g.byName[name]
			if !ok {
				return nil, fmt.Errorf("model.json: node %q reads unknown node %q", nd.Name, name)
			}
			n.inputs = append(n.inputs, vref{src, idx})
		}
	}
	return g, nil
}

// loadWeights cuts the concatenated shards of each manifest group into
// tensors, in manifest order.
func loadWeights(groups []manifestGroup, readShard func(path string) ([]byte, error)) (map[string]*tensor, error) {
	out := make(map[string]*tensor)
	for gi, grp := range groups {
		parts := make([][]byte, len(grp.Paths))
		total := 0
		for i, p := range grp.Paths {
			b, err := readShard(p)
			if err != nil {
				return nil, err
			}
			parts[i] = b
			total += len(b)
		}
		data := make([]byte, 0, total)
		for _, b := range parts {
			data = append(data, b...)
		}
		off := 0
		for _, w := range grp.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("weight %q: quantized weights are not supported", w.Name)
			}
			n := 1
			for _, d := range w.Shape {
				if d < 0 {
					return nil, fmt.Errorf("weight %q: negative dimension in %v", w.Name, w.Shape)
				}
				n *= d
			}
			t := &tensor{}
			if err := t.setShape(w.Shape); err != nil {
				return nil, fmt.Errorf("weight %q: %w", w.Name, err)
			}
			var width int
			switch w.Dtype {
			case "float32":
				width = 4
			case "int32":
				width = 4
			case "bool":
				width = 1
			default:
				return nil, fmt.Errorf("weight %q: unsupported dtype %q", w.Name, w.Dtype)
			}
			end := off + n*width
			if end > len(data) {
				return nil, fmt.Errorf("weights group %d: shards hold %d bytes, the manifest needs more (at %q): a shard is truncated; run `amem model pull`", gi, len(data), w.Name)
			}
			raw := data[off:end]
			switch w.Dtype {
			case "float32":
				t.dt = dtFloat32
				t.f = make([]float32, n)
				for k := range t.f {
					t.f[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
				}
			case "int32":
				t.dt = dtInt32
				t.i = make([]int32, n)
				for k := range t.i {
					t.i[k] = int32(binary.LittleEndian.Uint32(raw[4*k:]))
				}
			case "bool":
				t.dt = dtBool
				t.b = make([]bool, n)
				for k := range t.b {
					t.b[k] = raw[k] != 0
				}
			}
			off = end
			out[w.Name] = t
		}
		if off != len(data) {
			return nil, fmt.Errorf("weights group %d: shards hold %d bytes, the manifest describes %d", gi, len(data), off)
		}
	}
	return out, nil
}

// Attribute helpers. A missing attribute yields the TensorFlow default.

func (n *gnode) attrVal(key string) (*attrValue, error) {
	raw, ok := n.attr[key]
	if !ok {
		return nil, nil
	}
	var v attrValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("node %q attr %q: %w", n.name, key, err)
	}
	return &v, nil
}

func (n *gnode) attrInt(key string, def int) (int, error) {
	v, err := n.attrVal(key)
	if err != nil || v == nil || v.I == nil {
		return def, err
	}
	return parseJSONInt(v.I)
}

func (n *gnode) attrBool(key string, def bool) (bool, error) {
	v, err := n.attrVal(key)
	if err != nil || v == nil || v.B == nil {
		return def, err
	}
	return *v.B, nil
}

func (n *gnode) attrString(key, def string) (string, error) {
	v, err := n.attrVal(key)
	if err != nil || v == nil || v.S == nil {
		return def, err
	}
	// Bytes arrive either as an array of numbers or as base64 text.
	var nums []byte
	var arr []int
	if err := json.Unmarshal(v.S, &arr); err == nil {
		for _, c := range arr {
			nums = append(nums, byte(c))
		}
		return string(nums), nil
	}
	if err := json.Unmarshal(v.S, &nums); err == nil { // base64
		return string(nums), nil
	}
	return def, fmt.Errorf("node %q attr %q: unreadable string", n.name, key)
}

func (n *gnode) attrInts(key string) ([]int, error) {
	v, err := n.attrVal(key)
	if err != nil || v == nil || v.List == nil {
		return nil, err
	}
	out := make([]int, len(v.List.I))
	for k, raw := range v.List.I {
		if out[k], err = parseJSONInt(raw); err != nil {
			return nil, fmt.Errorf("node %q attr %q: %w", n.name, key, err)
		}
	}
	return out, nil
}

func parseJSONInt(raw json.RawMessage) (int, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strconv.Atoi(s)
	}
	var i int
	if err := json.Unmarshal(raw, &i); err != nil {
		return 0, fmt.Errorf("not an integer: %s", raw)
	}
	return i, nil
}
