//go:build !unix

package bash

func (e *executor) launch(launchSpec) (launched, int, error) {
	return nil, 0, unsupported("running commands in their own process group")
}
