//go:build !unix

package inproc

import "errors"

func newReadiness() (*readiness, error) {
	return nil, errors.New("no ready descriptor on this platform")
}

func (r *readiness) signal()  {}
func (r *readiness) drain()   {}
func (r *readiness) release() {}
