//go:build !unix

package stdio

import "io"

func watchParent() <-chan struct{} { return make(chan struct{}) }

func readerGone(io.Writer) <-chan struct{} { return make(chan struct{}) }
